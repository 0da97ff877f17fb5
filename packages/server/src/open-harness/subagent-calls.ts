// The sub-agents a run started, read from what its execution records: each Task call (Claude Code's
// Agent, by its newer name) is one sub-agent, its input naming the agent type, the task's short
// description and its prompt; the calls its sub-agent made carry the Task call's id as their
// parent; its result is the Task call's output (the sub-agent's last reply). Pure.
import type { DetailedToolCall, WatchView } from "./execution-record.ts";
import type { ExecutionEvent, ExecutionStatus, ToolCallSummary } from "./run-watch.ts";

/** The names the Task tool goes by. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(["Task", "Agent"]);

/** The one parent agent sub-agents have: the main agent of the session's runs (a sub-agent has no
 * Task tool, so it starts none). */
export const MAIN_AGENT = "main";

/** The spec's Subagent status. */
export type SubagentStatus = "idle" | "running" | "completed" | "failed";

/** The spec's Subagent, and what this server knows besides. */
export type SubagentShape = {
  id: string;
  name: string;
  description: string;
  status: SubagentStatus;
  parent_agent_id: string;
  created_at: string;
  session_id: string;
  /** The execution whose run started it (absent for one spawned over the API). */
  execution_id?: string;
  /** Its task: the Task call's prompt (the last one delegated, for one spawned over the API). */
  prompt?: string;
  model?: string;
  /** Run in the background (run_in_background): the call answered at once, its reply came later. */
  background?: true;
  started_at?: string;
  completed_at?: string;
};

/** A sub-agent's result, as the spec's ExecutionResult. */
export type SubagentResult = {
  execution_id: string;
  status: ExecutionStatus;
  output: string;
  artifacts: never[];
  tool_calls: ToolCallSummary[];
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
};

/** The text a Task call's result starts with when its sub-agent was stopped. */
const INTERRUPTED = /^Interrupted by user/;

/** The Task calls among `calls`, in order. */
export function taskCalls(calls: readonly DetailedToolCall[]): DetailedToolCall[] {
  return calls.filter((call) => TASK_TOOLS.has(call.name));
}

/** The calls the sub-agent of Task call `id` made, in order. */
export function nestedCalls(calls: readonly DetailedToolCall[], id: string): DetailedToolCall[] {
  return calls.filter((call) => (call as { parent_tool_call_id?: string }).parent_tool_call_id === id);
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** The sub-agent of Task call `call`, made in execution `executionId` of session `sessionId`. */
export function subagentOfCall(call: DetailedToolCall, executionId: string, sessionId: string): SubagentShape {
  const input = call.input as Record<string, unknown>;
  const status: SubagentStatus = call.status === "completed" ? "completed" : call.status === "failed" ? "failed" : "running";
  return {
    id: call.id,
    name: text(input.subagent_type),
    description: text(input.description),
    status,
    parent_agent_id: MAIN_AGENT,
    created_at: call.started_at,
    session_id: sessionId,
    execution_id: executionId,
    prompt: text(input.prompt),
    ...(typeof input.model === "string" && { model: input.model }),
    ...(input.run_in_background === true && { background: true as const }),
    started_at: call.started_at,
    ...(call.completed_at !== undefined && { completed_at: call.completed_at }),
  };
}

/** The result of Task call `call`, once it has ended: its output, and the calls its sub-agent made. */
export function resultOfCall(call: DetailedToolCall, nested: readonly DetailedToolCall[], executionId: string): SubagentResult {
  const failed = call.status === "failed";
  const output = failed ? (call.error ?? "") : text((call.output as { text?: unknown } | undefined)?.text);
  return {
    execution_id: executionId,
    status: failed ? (INTERRUPTED.test(output) ? "cancelled" : "failed") : "completed",
    output,
    artifacts: [],
    tool_calls: nested.map((c) => ({ id: c.id, name: c.name, success: c.status === "completed", duration_ms: c.duration_ms ?? 0 })),
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  };
}

/** The sub-agents `watch`'s run started. */
export function subagentsOfRun(watch: WatchView, executionId: string, sessionId: string): SubagentShape[] {
  return taskCalls(watch.detailed()).map((call) => subagentOfCall(call, executionId, sessionId));
}

/** The events of a sub-agent's run among its execution's: those of the calls it made, read from
 * `from` on; then, once its Task call has ended, its result as text (and an error when it failed)
 * and done. `ended`: whether that end was reached. */
export function subagentEvents(events: readonly ExecutionEvent[], from: number, calls: readonly DetailedToolCall[], id: string): { events: ExecutionEvent[]; next: number; ended: boolean } {
  const mine = new Set(nestedCalls(calls, id).map((call) => call.id));
  const out: ExecutionEvent[] = [];
  let next = from;
  for (; next < events.length; next++) {
    const event = events[next];
    if ((event.type === "tool_call_start" || event.type === "tool_call_end" || event.type === "tool_result") && mine.has(event.id)) out.push(event);
  }
  const task = calls.find((call) => call.id === id);
  if (!task || (task.status !== "completed" && task.status !== "failed")) return { events: out, next, ended: false };
  const result = resultOfCall(task, [], "");
  if (result.output) out.push({ type: "text", content: result.output });
  if (result.status !== "completed") out.push({ type: "error", code: result.status === "cancelled" ? "cancelled" : "subagent_failed", message: result.output || "the sub-agent failed", recoverable: true });
  out.push({ type: "done", usage: result.usage });
  return { events: out, next, ended: true };
}
