// One prompt's run seen through a session connection, as the spec's ExecutionEvents: the watch reads
// the frames any client gets (state, delta, error), keeps the state they make, and tells what changed
// from its prompt's user message on (a run another client started meanwhile is not its). Pure:
// frames in, events out.
import { applyOperations, type HarnessMessage, type HarnessState, type ServerMessage, type Usage } from "@harness/protocol";
import { INTERRUPTED_MESSAGE } from "@harness/session";
import { writerPath } from "./artifact-paths.ts";

export type UsageStats = { input_tokens: number; output_tokens: number; total_tokens: number };
export type ExecutionEvent =
  | { type: "text"; content: string }
  | { type: "thinking"; content: string }
  | { type: "tool_call_start"; id: string; name: string; input: object }
  | { type: "tool_call_end"; id: string }
  | { type: "tool_result"; id: string; success: boolean; output?: object }
  | { type: "artifact"; id: string; name: string; mime_type: string; size_bytes: number }
  | { type: "error"; code: string; message: string; recoverable: boolean }
  | { type: "done"; usage: UsageStats };
export type ExecutionStatus = "pending" | "running" | "completed" | "failed" | "cancelled";
export type ToolCallSummary = { id: string; name: string; success: boolean; duration_ms: number };

const UNDER_WAY = new Set(["running", "awaiting-approval"]);
/** Our tool call statuses as the spec's. */
export const TOOL_STATUS = { running: "running", "awaiting-approval": "pending", complete: "completed", error: "failed", denied: "failed" } as const;

export class RunWatch {
  status: ExecutionStatus = "pending";
  state: HarnessState | undefined;
  output = "";
  usage: UsageStats = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  /** `files`: how many of the call's changedFiles were taken into `touched`. */
  readonly toolCalls = new Map<string, { name: string; startedAt: number; endedAt?: number; success?: boolean; files?: number }>();
  /** The files the run made, as given (see artifact-paths.ts), each once, in the order first seen:
   * only grows. */
  readonly touched: string[] = [];
  readonly #touched = new Set<string>();
  /** How many `touched` had when onTouched was last told. */
  #told = 0;
  /** The run's file checkpoint saw more files changed than it named. */
  filesTruncated = false;
  /** How many messages there were when the watch began, and where its prompt is once it shows. */
  #baseline = -1;
  #start = -1;
  readonly #prompt: string;
  #usageBefore: Usage | undefined;
  #seen = new Map<string, { content: number; thinking: number; files: number }>();
  readonly #emit: (event: ExecutionEvent) => void;
  readonly #onWaiting: () => void;
  readonly #onTouched: () => void;
  /** The ids of the calls awaiting() gave after the last frame, joined. */
  #waiting = "";

  /** `onWaiting` is told each time what the run waits for (awaiting()) changes: the spec's
   * ExecutionEvents have no event for it. `onTouched` is told each time `touched` grew, before the
   * run's end (if the same frame ends it) is emitted. */
  constructor(prompt: string, emit: (event: ExecutionEvent) => void, onWaiting: () => void = () => {}, onTouched: () => void = () => {}) {
    this.#prompt = prompt;
    this.#emit = emit;
    this.#onWaiting = onWaiting;
    this.#onTouched = onTouched;
  }

  get finished(): boolean {
    return this.status === "completed" || this.status === "failed" || this.status === "cancelled";
  }

  /** Takes one server frame; `submitIndex` is the index of the submit in the frame that sent it. */
  frame(message: ServerMessage, submitIndex = 0): void {
    if (this.finished) return;
    if (message.type === "error") {
      // The submit itself was refused (a run under way, a server that is stopping): the run never was.
      if (message.command === submitIndex && this.status === "pending") this.#fail(message.code ?? "submit_refused", message.message);
      return;
    }
    if (message.type === "state") this.state = message.state;
    else if (this.state) this.state = applyOperations(this.state, message.operations);
    else return;
    if (this.#baseline < 0) {
      this.#baseline = this.state.messages.length;
      this.#usageBefore = this.state.usage;
      return;
    }
    this.#observe(this.state);
    // Nothing waits in most frames: nothing more is done for them.
    if (this.#waiting === "" && !this.state.pendingApprovals?.length) return;
    const waiting = this.awaiting().map((call) => call.toolCallId).join(" ");
    if (waiting !== this.#waiting) {
      this.#waiting = waiting;
      this.#onWaiting();
    }
  }

  #observe(state: HarnessState): void {
    if (this.#start < 0) {
      const at = state.messages.findIndex((m, i) => i >= this.#baseline && m.role === "user" && m.content === this.#prompt);
      if (at < 0) {
        // Another client's run, before this one's prompt: its usage is not this run's.
        this.#usageBefore = state.usage;
        return;
      }
      this.#start = at;
      this.status = "running";
    }
    const mine = state.messages.slice(this.#start);
    for (const message of mine) {
      if (message.role !== "assistant") continue;
      const seen = this.#seen.get(message.id) ?? { content: 0, thinking: 0, files: 0 };
      this.#seen.set(message.id, seen);
      const thinking = message.thinking ?? "";
      if (thinking.length > seen.thinking) this.#emit({ type: "thinking", content: thinking.slice(seen.thinking) });
      seen.thinking = thinking.length;
      if (message.content.length > seen.content) {
        const text = message.content.slice(seen.content);
        this.output += text;
        this.#emit({ type: "text", content: text });
      }
      seen.content = message.content.length;
      for (const call of message.toolCalls ?? []) {
        let known = this.toolCalls.get(call.id);
        if (!known) {
          known = { name: call.name, startedAt: Date.now() };
          this.toolCalls.set(call.id, known);
          this.#emit({ type: "tool_call_start", id: call.id, name: call.name, input: call.input ?? {} });
        }
        if (known.endedAt === undefined && (call.status === "complete" || call.status === "error" || call.status === "denied")) {
          known.endedAt = Date.now();
          known.success = call.status === "complete";
          this.#emit({ type: "tool_call_end", id: call.id });
          this.#emit({ type: "tool_result", id: call.id, success: known.success, ...(call.output !== undefined && { output: { text: call.output } }) });
          const written = known.success ? writerPath(call.name, call.input) : undefined;
          if (written !== undefined) this.#touch([written]);
        }
        // The files the call made (reported a moment after it ended): announced before what the
        // calls after it do.
        const files = call.changedFiles ?? [];
        if (files.length > (known.files ?? 0)) {
          this.#touch(files.slice(known.files ?? 0));
          known.files = files.length;
        }
        this.#tell();
      }
      // The run's own list: the files no call was first to make (a hook's, a background process's,
      // those only the run's end saw).
      const changed = message.changedFiles;
      if (changed && changed.paths.length > seen.files) {
        this.#touch(changed.paths.slice(seen.files));
        seen.files = changed.paths.length;
      }
      if (changed?.truncated) this.filesTruncated = true;
    }
    this.#tell();
    const last = mine.at(-1)!;
    if (UNDER_WAY.has(state.status) || last.status === "running") return;
    this.usage = usageBetween(this.#usageBefore, state.usage);
    // A run the server interrupted as it stopped ends cancelled with the session in error: that is
    // no cancel of anyone's.
    const interrupted = state.error === INTERRUPTED_MESSAGE;
    if (last.status === "cancelled" && !interrupted) this.status = "cancelled";
    else if (interrupted) {
      this.status = "failed";
      this.#emit({ type: "error", code: "server_stopped", message: INTERRUPTED_MESSAGE, recoverable: false });
    } else if (last.status === "error" || state.status === "error") {
      this.status = "failed";
      this.#emit({ type: "error", code: "run_failed", message: state.error || "the run failed", recoverable: true });
    } else this.status = "completed";
    this.#emit({ type: "done", usage: this.usage });
  }

  #touch(paths: readonly string[]): void {
    for (const path of paths) {
      if (this.#touched.has(path)) continue;
      this.#touched.add(path);
      this.touched.push(path);
    }
  }

  /** Tells onTouched of the files seen since it was last told. */
  #tell(): void {
    if (this.touched.length === this.#told) return;
    this.#told = this.touched.length;
    this.#onTouched();
  }

  /** Ends the watch as failed, for `message` (the session went away, the submit was refused). */
  fail(code: string, message: string): void {
    if (!this.finished) this.#fail(code, message);
  }

  #fail(code: string, message: string): void {
    this.status = "failed";
    this.#emit({ type: "error", code, message, recoverable: false });
    this.#emit({ type: "done", usage: this.usage });
  }

  /** The messages of this run: its prompt and what came after it. */
  mine(): HarnessMessage[] {
    return this.state && this.#start >= 0 ? this.state.messages.slice(this.#start) : [];
  }

  /** The calls of this run that wait for approval, oldest first (what input answers). */
  awaiting(): { toolCallId: string; toolName: string; description: string }[] {
    if (this.finished) return [];
    return (this.state?.pendingApprovals ?? []).filter((pending) => this.toolCalls.has(pending.toolCallId));
  }

  /** The run's tool calls with their input and output, as the spec's DetailedToolCall. */
  detailed() {
    const calls = new Map(this.mine().flatMap((message) => message.toolCalls ?? []).map((call) => [call.id, call]));
    return [...this.toolCalls].map(([id, known]) => {
      const call = calls.get(id);
      const failed = call?.status === "error" || call?.status === "denied";
      return {
        id,
        name: known.name,
        input: call?.input ?? {},
        // A sub-agent's call: the id of the Task call that started it.
        ...(call?.parentToolCallId !== undefined && { parent_tool_call_id: call.parentToolCallId }),
        ...(call?.output !== undefined && !failed && { output: { text: call.output } }),
        status: call ? TOOL_STATUS[call.status] : "running",
        ...(failed && { error: call.output || (call.status === "denied" ? "denied" : "failed") }),
        started_at: new Date(known.startedAt).toISOString(),
        ...(known.endedAt !== undefined && { completed_at: new Date(known.endedAt).toISOString(), duration_ms: known.endedAt - known.startedAt }),
      };
    });
  }

  summaries(): ToolCallSummary[] {
    return [...this.toolCalls].map(([id, call]) => ({ id, name: call.name, success: call.success ?? false, duration_ms: (call.endedAt ?? Date.now()) - call.startedAt }));
  }
}

/** The tokens spent between two of the session's totals. */
function usageBetween(before: Usage | undefined, after: Usage | undefined): UsageStats {
  const input = Math.max(0, (after?.inputTokens ?? 0) - (before?.inputTokens ?? 0));
  const output = Math.max(0, (after?.outputTokens ?? 0) - (before?.outputTokens ?? 0));
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}
