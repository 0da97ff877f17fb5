// What the page says about the state, as plain strings: pure functions, tested without a browser.
import type { HarnessMessage, HarnessState, HarnessToolCall, Usage } from "@harness/protocol";
import type { ConnectionStatus } from "@harness/client";

/** Most characters of one tool output kept in the page; the rest is counted, not shown. */
export const MAX_OUTPUT_CHARS = 20_000;
/** Outputs longer than this (characters or lines) start collapsed. */
export const COLLAPSE_CHARS = 600;
export const COLLAPSE_LINES = 8;

/** `text` cut to `max` characters, and how many were left out. */
export function clip(text: string, max: number): { text: string; cut: number } {
  return text.length <= max ? { text, cut: 0 } : { text: text.slice(0, max), cut: text.length - max };
}

export function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

export function isLong(text: string): boolean {
  return text.length > COLLAPSE_CHARS || lineCount(text) > COLLAPSE_LINES;
}

/** The input field that says what a call of a well-known tool does. */
const KEY_FIELD: Record<string, string> = {
  Bash: "command",
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
  Glob: "pattern",
  Grep: "pattern",
  WebFetch: "url",
  WebSearch: "query",
  Task: "description",
  Skill: "skill",
};

/** One line that says what a call does: its key field for the known tools, else its input as
 * JSON; at most `max` characters. */
export function inputSummary(call: Pick<HarnessToolCall, "name" | "input">, max = 200): string {
  const input = call.input ?? {};
  const key = KEY_FIELD[call.name];
  const value = key === undefined ? undefined : input[key];
  const text = typeof value === "string" ? value : Object.keys(input).length === 0 ? "" : JSON.stringify(input);
  const line = text.replace(/\s*\n\s*/g, " ⏎ ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The message's text and tool calls in the order they came: each call after the text that was
 * there when it was made (`textOffset`); calls without one after all the text. */
export type Segment = { kind: "text"; text: string } | { kind: "call"; call: HarnessToolCall };

export function segments(message: Pick<HarnessMessage, "content" | "toolCalls">): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  const calls = message.toolCalls ?? [];
  const placed = calls.filter((c) => c.textOffset !== undefined).sort((a, b) => a.textOffset! - b.textOffset!);
  for (const call of placed) {
    const offset = Math.min(Math.max(call.textOffset!, at), message.content.length);
    if (offset > at) out.push({ kind: "text", text: message.content.slice(at, offset) });
    at = offset;
    out.push({ kind: "call", call });
  }
  if (at < message.content.length) out.push({ kind: "text", text: message.content.slice(at) });
  for (const call of calls) if (call.textOffset === undefined) out.push({ kind: "call", call });
  return out;
}

/** "$0.0123", "≥ $0.01" when some calls had no known price; undefined without a cost. */
export function costText(usage: Usage | undefined): string | undefined {
  if (usage?.costUsd === undefined) return undefined;
  const cost = usage.costUsd;
  const amount = cost >= 1 ? cost.toFixed(2) : cost >= 0.01 ? cost.toFixed(3) : cost.toFixed(4);
  return `${usage.unpricedCalls ? "≥ " : ""}$${amount}`;
}

const STATUS_WORDS: Record<HarnessState["status"], string> = {
  idle: "idle",
  running: "running",
  "awaiting-approval": "waiting for approval",
  error: "error",
};

/** The status line: the connection when it is not open, else the run's status; then the model and
 * the cost when the state has them. */
export function statusLine(state: HarnessState | undefined, connection: ConnectionStatus): string {
  const parts: string[] = [];
  if (connection === "reconnecting") parts.push("reconnecting…");
  else if (connection === "connecting" || !state) parts.push("connecting…");
  else if (connection === "closed") parts.push("disconnected");
  else parts.push(STATUS_WORDS[state.status] ?? state.status);
  const model = state?.config?.model ?? state?.available?.model;
  if (model) parts.push(model);
  const cost = costText(state?.spent?.usage ?? state?.usage);
  if (cost) parts.push(cost);
  return parts.join(" · ");
}

/** Whether a run is under way (a prompt then steers it, and Cancel stops it). */
export function underWay(state: HarnessState | undefined): boolean {
  return state?.status === "running" || state?.status === "awaiting-approval";
}

/** The id of the background shell a Bash call was moved to (its output then says so), else
 * undefined. */
export function backgroundShell(output: string | undefined): string | undefined {
  return /^Command was manually backgrounded by user with ID: (\S+?)\.?(?:\s|$)/.exec(output ?? "")?.[1];
}
