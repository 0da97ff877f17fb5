// A task delegated to a spawned sub-agent: one direct Task call on the session's runner, its runner
// events read as the spec's ExecutionEvents. The sub-agent's text and thinking stream as text and
// thinking, its tool calls as tool_call_start, tool_call_end and tool_result; the Task call's result
// (the sub-agent's last reply) is the delegation's output. Events are kept (numbered from 1, for
// Last-Event-ID) so that a client may attach at any time.
import type { RunnerEvent } from "@harness/protocol";
import type { ExecutionEvent, ExecutionStatus, UsageStats } from "./run-watch.ts";

type CallRecord = { name: string; input: Record<string, unknown>; startedAt: number; endedAt?: number; success?: boolean; output?: string };

/** The text a Task call's result starts with when its sub-agent was stopped. */
const INTERRUPTED = /^Interrupted by user/;

export class Delegation {
  readonly task: string;
  readonly startedAt = new Date().toISOString();
  completedAt: string | undefined;
  status: ExecutionStatus = "running";
  output = "";
  usage: UsageStats = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  readonly events: ExecutionEvent[] = [];
  /** Called after each new event. */
  readonly listeners = new Set<() => void>();
  readonly calls = new Map<string, CallRecord>();
  /** Settles once the delegation has ended. */
  readonly ended: Promise<void>;
  readonly #controller: AbortController;
  #stopped = false;
  #markEnded!: () => void;

  constructor(task: string, controller: AbortController) {
    this.task = task;
    this.#controller = controller;
    this.ended = new Promise((resolve) => (this.#markEnded = resolve));
  }

  get finished(): boolean {
    return this.status !== "running";
  }

  /** Stops the sub-agent: its Task call ends as interrupted, the delegation as cancelled. */
  stop(): void {
    this.#stopped = true;
    this.#controller.abort();
  }

  #emit(event: ExecutionEvent): void {
    this.events.push(event);
    for (const listener of this.listeners) listener();
  }

  /** Takes one of the call's runner events. */
  take(event: RunnerEvent): void {
    if (this.finished) return;
    switch (event.type) {
      case "assistant.delta":
      case "assistant.thinking":
        if (event.agentId !== undefined && event.text !== "") this.#emit({ type: event.type === "assistant.delta" ? "text" : "thinking", content: event.text });
        return;
      case "call.completed": {
        if (event.side) return;
        const input = this.usage.input_tokens + event.usage.inputTokens;
        const output = this.usage.output_tokens + event.usage.outputTokens;
        this.usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
        return;
      }
      case "tool.started":
        if (event.parentToolUseId === undefined || this.calls.has(event.toolUseId)) return;
        this.calls.set(event.toolUseId, { name: event.toolName, input: event.input ?? {}, startedAt: Date.now() });
        this.#emit({ type: "tool_call_start", id: event.toolUseId, name: event.toolName, input: event.input ?? {} });
        return;
      case "tool.completed": {
        if (event.parentToolUseId === undefined) return this.#settle(event.output, event.isError);
        const call = this.calls.get(event.toolUseId);
        if (!call || call.endedAt !== undefined) return;
        Object.assign(call, { endedAt: Date.now(), success: !event.isError, output: event.output });
        this.#emit({ type: "tool_call_end", id: event.toolUseId });
        this.#emit({ type: "tool_result", id: event.toolUseId, success: !event.isError, output: { text: event.output } });
        return;
      }
      case "run.error":
        return this.#settle(this.#stopped ? "Interrupted by user" : event.message, true, "runner_error");
      default:
        return;
    }
  }

  /** Ends the delegation; what has not ended yet (the call's events stopped short) as failed. */
  close(reason = "the call ended without a result"): void {
    if (!this.finished) this.#settle(reason, true, "runner_error");
  }

  #settle(output: string, isError: boolean, code = "subagent_failed"): void {
    this.output = output;
    const cancelled = isError && (this.#stopped || INTERRUPTED.test(output));
    this.status = !isError ? "completed" : cancelled ? "cancelled" : "failed";
    this.completedAt = new Date().toISOString();
    if (isError) this.#emit({ type: "error", code: cancelled ? "cancelled" : code, message: output, recoverable: true });
    this.#emit({ type: "done", usage: this.usage });
    this.#markEnded();
  }

  /** The sub-agent's tool calls, as an execution's are listed. */
  toolCalls() {
    return [...this.calls].map(([id, call]) => ({
      id,
      name: call.name,
      input: call.input,
      status: call.endedAt === undefined ? "running" : call.success ? "completed" : "failed",
      ...(call.output !== undefined && { output: { text: call.output } }),
      started_at: new Date(call.startedAt).toISOString(),
      ...(call.endedAt !== undefined && { completed_at: new Date(call.endedAt).toISOString(), duration_ms: call.endedAt - call.startedAt }),
    }));
  }

  summaries() {
    return [...this.calls].map(([id, call]) => ({ id, name: call.name, success: call.success ?? false, duration_ms: (call.endedAt ?? Date.now()) - call.startedAt }));
  }
}
