// /tasks (Claude Code's, which /bashes also names): the conversation's background shells, those
// run_in_background started and those the user moved to the background, and `kill <id>` to stop one.
import type { KillShellAnswer } from "@harness/protocol";
import { shellsListing, shellStatusText } from "@harness/protocol/shells";
import { killShell } from "../../tools/shell/background-shells.ts";
import { shellList } from "../../tools/shell/shells-watch.ts";
import type { ToolState } from "../../tools/state.ts";

/** The report, or what `kill <id>` did. `name`: the command as typed, for the hint. */
export function shellsReport(state: ToolState, args: string, name = "tasks", now = new Date()): string {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const listing = () => shellsListing(shellList(state.shells), name, now.getTime());
  if (words.length === 0) return listing();
  if (words[0] !== "kill" || words.length !== 2) return `/${name} takes nothing, or kill <id> to stop a background shell, not ${quoted(args.trim())}.`;
  const answer = killShellById(state, words[1]!);
  return answer.outcome === "unknown" ? `${answer.message} ${listing()}` : answer.message;
}

/** Stops background shell `id` (/tasks kill, or a client's kill-shell while a run goes on). */
export function killShellById(state: ToolState, id: string): KillShellAnswer {
  const shell = state.shells.get(id);
  if (!shell) return { outcome: "unknown", message: `No background shell ${quoted(id)}.` };
  const killed = killShell(shell);
  if (killed === "killed") return { outcome: "killed", message: `Killed background shell ${shell.id}: ${shell.command}` };
  if (killed === "leftovers") return { outcome: "leftovers", message: `Background shell ${shell.id} had ended (${shell.status}); the processes it left running were stopped.` };
  const [info] = shellList(new Map([[shell.id, shell]]));
  return { outcome: "not-running", message: `Background shell ${shell.id} is not running (${shellStatusText(info!)}): nothing to kill.` };
}

/** Most characters of what the user typed that an answer quotes. */
const QUOTED_CHARS = 60;

/** `text` in quotes, cut (at a whole character) when long, saying how long it was. */
function quoted(text: string): string {
  const chars = Array.from(text);
  return chars.length <= QUOTED_CHARS ? `"${text}"` : `"${chars.slice(0, QUOTED_CHARS).join("")}…" (${text.length} characters)`;
}
