// A slash command's `!` shell commands (!`git status`, and ```! blocks), run before its prompt
// reaches the model, their output put in their place, as Claude Code does. They go through the
// same gate as the model's Bash calls (the command's allowed-tools, the rules, the mode, the
// sandbox, hooks, approval where someone can give it), and the user sees them as tool calls.
import { releaseArguments, SHELL_BLOCK, SHELL_INLINE } from "../../commands/shell-syntax.ts";
import { runCommandCalls } from "./calls.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** What takes a `!` command's place when the settings' disableSkillShellExecution is true (Claude Code's words). */
const SHELL_DISABLED = "[shell command execution disabled by policy]";

/** `text` with each `!` command replaced by what it printed (or by why it did not run). The
 * commands are found before the arguments held in `text` are released (see holdArgument): each
 * runs whole, the arguments in it included, and is checked as such by the gate. */
export async function runShellCommands(ctx: RunContext, state: RunState, text: string): Promise<string> {
  const found: { start: number; end: number; lead: string; command: string }[] = [];
  for (const match of text.matchAll(SHELL_BLOCK)) found.push({ start: match.index, end: match.index + match[0].length, lead: "", command: releaseArguments((match[1] as string).trim()) });
  for (const match of text.matchAll(SHELL_INLINE)) {
    const start = match.index;
    if (found.some((block) => start >= block.start && start < block.end)) continue;
    found.push({ start, end: start + match[0].length, lead: match[1] as string, command: releaseArguments((match[2] as string).trim()) });
  }
  if (found.length === 0) return releaseArguments(text);
  found.sort((a, b) => a.start - b.start);
  // Claude Code's disableSkillShellExecution: no skill or command of any scope runs its commands
  // (Harness has no bundled or managed skills, the ones it spares).
  const results =
    ctx.setup.settings.disableSkillShellExecution === true
      ? found.map(() => ({ text: SHELL_DISABLED, isError: false }))
      : await runCommandCalls(
          ctx,
          state,
          found.map((item) => ({ name: "Bash", input: { command: item.command } })),
        );
  let out = "";
  let at = 0;
  found.forEach((item, i) => {
    const { text: printed, isError } = results[i]!;
    out += releaseArguments(text.slice(at, item.start)) + item.lead + (isError ? `[\`${item.command}\` failed: ${printed}]` : printed);
    at = item.end;
  });
  return out + releaseArguments(text.slice(at));
}
