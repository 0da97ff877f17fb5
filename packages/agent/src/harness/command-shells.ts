// A slash command's `!` shell commands (!`git status`, and ```! blocks), run before its prompt
// reaches the model, their output put in their place, as Claude Code does. They go through the
// same gate as the model's Bash calls (the command's allowed-tools, the rules, the mode, the
// sandbox, hooks, approval where someone can give it), and the user sees them as tool calls.
import type { ToolUseBlock } from "@harness/llm";
import { executeToolCalls } from "../execute-tool-calls.ts";
import type { RunContext } from "./run-context.ts";
import { toolRunFor } from "./run-context.ts";
import type { RunState } from "./run-state.ts";

/** Inline !`cmd`, at the start of a line or after a space; and ```! fenced blocks. */
const INLINE = /(^|\s)!`([^`\n]+)`/gm;
const BLOCK = /^```!\s*\n([\s\S]*?)\n```/gm;

/** `text` with each `!` command replaced by what it printed (or by why it did not run). */
export async function runShellCommands(ctx: RunContext, state: RunState, text: string): Promise<string> {
  const found: { start: number; end: number; lead: string; command: string }[] = [];
  for (const match of text.matchAll(BLOCK)) found.push({ start: match.index, end: match.index + match[0].length, lead: "", command: (match[1] as string).trim() });
  for (const match of text.matchAll(INLINE)) {
    const start = match.index;
    if (found.some((block) => start >= block.start && start < block.end)) continue;
    found.push({ start, end: start + match[0].length, lead: match[1] as string, command: (match[2] as string).trim() });
  }
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start);
  const calls: ToolUseBlock[] = found.map((item, i) => ({ type: "tool_use", id: `command_shell_${Date.now().toString(36)}_${i}`, name: "Bash", input: { command: item.command } }));
  for (const call of calls) {
    state.started.add(call.id);
    state.emit({ type: "tool.started", toolName: call.name, toolUseId: call.id, input: call.input });
  }
  const results = await executeToolCalls(calls, toolRunFor(ctx, state));
  let out = "";
  let at = 0;
  found.forEach((item, i) => {
    const result = results[i];
    const printed = typeof result.content === "string" ? result.content : result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    out += text.slice(at, item.start) + item.lead + (result.is_error ? `[\`${item.command}\` failed: ${printed}]` : printed);
    at = item.end;
  });
  return out + text.slice(at);
}
