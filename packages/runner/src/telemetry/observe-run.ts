// What one run reports, read from the events it emits anyway (AgentEvent), in Claude Code's
// structure under Harness's names: per model call (call.completed, counted once however often it
// is reported under its id) tokens, cost and an api_request event; per failed model request an
// api_error event, from a notice's `retry` (tried again) or the run's `modelFailure` (not); per tool call (tool.started →
// tool.completed) a tool_result event, its decision, and the lines an Edit or Write changed; per
// run the prompt and its time. Nothing is done per text delta: the handlers are looked up by
// event type, and deltas have none.
import type { AgentEvent, ModelFailure, RunnerQuery, Usage } from "@harness/protocol";
import type { RunOutcome } from "../backend.ts";
import type { TelemetryConfig } from "./config.ts";
import type { Exporter } from "./exporter.ts";
import type { Attributes } from "./otlp-model.ts";

/** Whose run it is, for the standard attributes. */
export type RunWho = { sessionId?: string; userId?: string };

/** `end` takes the run's outcome, or nothing when the run threw. */
export type RunObserver = { event(event: AgentEvent): void; end(outcome: RunOutcome | undefined): void };

export type ObserveDeps = { exporter: Exporter; config: TelemetryConfig; appVersion: string; terminal?: string; now?: () => number };

const COUNT = { description: "", unit: "count" };
const METRICS = {
  session: { ...COUNT, description: "Conversations started" },
  lines: { ...COUNT, description: "Lines of code changed by Edit and Write" },
  tokens: { description: "Tokens used, by type and model", unit: "tokens" },
  cost: { description: "Cost of the model calls, by model", unit: "USD", isDouble: true },
  active: { description: "Time runs were under way", unit: "s", isDouble: true },
} as const;

/** The longest text an event carries in one attribute (an error, a tool's input). */
const MAX_TEXT = 1024;
const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

export function observeRun(query: RunnerQuery, who: RunWho, deps: ObserveDeps): RunObserver {
  const { exporter, config } = deps;
  const now = deps.now ?? Date.now;
  const startedAt = now();
  let model = query.model ?? "unknown";
  /** Since when the model call now under way has been waited for. */
  let callFrom = startedAt;
  let apiErrorAt: number | undefined;
  /** The attempt of the model call under way that last failed (0: none has). */
  let failedAttempt = 0;
  const tools = new Map<string, { name: string; at: number; input?: Record<string, unknown> }>();
  const decisions = new Map<string, { decision: "accept" | "reject"; source: string }>();

  const standard = (forMetrics: boolean): Record<string, string> => ({
    ...(who.sessionId !== undefined && (!forMetrics || config.include.sessionId) && { "session.id": who.sessionId }),
    ...(who.userId !== undefined && { "user.id": who.userId }),
    ...((!forMetrics || config.include.version) && { "app.version": deps.appVersion }),
    ...(deps.terminal && { "terminal.type": deps.terminal }),
  });
  const metricAttrs = standard(true);
  const eventAttrs = standard(false);
  const add = (name: keyof typeof METRICS, metric: string, value: number, attributes: Attributes = {}) =>
    exporter.add(metric, METRICS[name], value, { ...metricAttrs, ...attributes });
  const event = (name: string, attributes: Attributes) => exporter.event(name, { ...eventAttrs, ...attributes });

  // A conversation starts with a run that carries no history and resumes none.
  if (!query.history?.length && query.historyId === undefined && query.resumeSessionId === undefined) add("session", "harness.session.count", 1);
  event("user_prompt", { prompt_length: query.prompt.length, ...(config.logUserPrompts && { prompt: query.prompt }) });

  /** A call's counts as reported, by its id: one reported again (its real counts, learnt late) adds only what grew. */
  const calls = new Map<string, { tokens: Record<string, number>; cost: number }>();

  function call(usage: Usage, callId: string | undefined): void {
    const at = now();
    const tokens = { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens ?? 0, cacheCreation: usage.cacheWriteTokens ?? 0 };
    const cost = usage.costUsd ?? 0;
    const before = callId === undefined ? undefined : calls.get(callId);
    if (callId !== undefined) calls.set(callId, { tokens, cost });
    for (const [type, count] of Object.entries(tokens)) add("tokens", "harness.token.usage", count - (before?.tokens[type] ?? 0), { type, model });
    if (usage.costUsd !== undefined) add("cost", "harness.cost.usage", cost - (before?.cost ?? 0), { model });
    // One api_request per call, and none for an attempt that used nothing (it failed before any answer: an api_error).
    if (before || (Object.values(tokens).every((n) => n === 0) && cost === 0)) return;
    event("api_request", {
      model,
      cost_usd: { double: usage.costUsd ?? 0 },
      duration_ms: Math.max(0, Math.round(at - callFrom)),
      input_tokens: tokens.input,
      output_tokens: tokens.output,
      cache_read_tokens: tokens.cacheRead,
      cache_creation_tokens: tokens.cacheCreation,
    });
    callFrom = at;
    apiErrorAt = undefined;
    failedAttempt = 0;
  }

  /** A model request that failed, tried again (a notice's retry) or not (the run's end). */
  function apiError(failure: ModelFailure, attempt: number): void {
    const at = now();
    const status = failure.status !== undefined && { status_code: String(failure.status) };
    event("api_error", { model, error: cut(failure.error), ...status, duration_ms: Math.max(0, Math.round(at - (apiErrorAt ?? callFrom))), attempt });
    apiErrorAt = at;
    failedAttempt = attempt;
  }

  function toolDone(e: Extract<AgentEvent, { type: "tool.completed" }>): void {
    const at = now();
    const started = tools.get(e.toolUseId);
    tools.delete(e.toolUseId);
    const name = started?.name ?? "unknown";
    let decision = decisions.get(e.toolUseId);
    decisions.delete(e.toolUseId);
    // A call nobody was asked about was decided by the settings, the mode or a hook: told here,
    // once its outcome says which way (a refused call ends denied).
    if (!decision) {
      decision = { decision: e.denied ? "reject" : "accept", source: "config" };
      event("tool_decision", { tool_name: name, ...decision });
    }
    event("tool_result", {
      tool_name: name,
      success: !e.isError,
      duration_ms: started ? Math.max(0, Math.round(at - started.at)) : 0,
      ...(e.isError && { error: cut(e.output) }),
      ...(decision && { decision_type: decision.decision, decision_source: decision.source }),
      ...(config.logToolDetails && started?.input && { tool_parameters: cut(JSON.stringify(started.input)) }),
    });
    if (!e.isError && started?.input) countLines(name, started.input);
    // The model is waited for again from the end of the calls it asked for.
    callFrom = at;
  }

  function countLines(tool: string, input: Record<string, unknown>): void {
    const lines = (text: unknown) => (typeof text === "string" && text !== "" ? text.split("\n").length - (text.endsWith("\n") ? 1 : 0) : 0);
    let added = 0;
    let removed = 0;
    if (tool === "Edit") {
      added = lines(input.new_string);
      removed = lines(input.old_string);
    } else if (tool === "MultiEdit" && Array.isArray(input.edits)) {
      for (const edit of input.edits as Record<string, unknown>[]) {
        added += lines(edit?.new_string);
        removed += lines(edit?.old_string);
      }
    } else if (tool === "Write") added = lines(input.content);
    add("lines", "harness.lines_of_code.count", added, { type: "added" });
    add("lines", "harness.lines_of_code.count", removed, { type: "removed" });
  }

  const handlers: { [K in AgentEvent["type"]]?: (event: Extract<AgentEvent, { type: K }>) => void } = {
    "run.ready": (e) => {
      if (e.agentId === undefined) model = e.available.model;
    },
    "call.completed": (e) => call(e.usage, e.callId),
    "tool.started": (e) => void tools.set(e.toolUseId, { name: e.toolName, at: now(), ...(e.input && { input: e.input }) }),
    "tool.completed": toolDone,
    "approval.resolved": (e) => {
      const decision = e.behavior === "allow" ? "accept" : "reject";
      decisions.set(e.toolUseId, { decision, source: "user" });
      event("tool_decision", { tool_name: tools.get(e.toolUseId)?.name ?? "unknown", decision, source: "user" });
    },
    notice: (e) => {
      if (e.retry) apiError(e.retry, e.retry.attempt);
    },
  };

  return {
    event(e) {
      const handler = handlers[e.type] as ((event: AgentEvent) => void) | undefined;
      if (handler) handler(e);
    },
    end(outcome) {
      if (outcome?.ok && outcome.model) model = outcome.model;
      // The failure no attempt was left for (or not worth another): its attempt follows the last one tried again.
      if (outcome && !outcome.ok && outcome.modelFailure) apiError(outcome.modelFailure, outcome.modelFailure.attempt ?? failedAttempt + 1);
      add("active", "harness.active_time.total", (now() - startedAt) / 1000, { type: "cli" });
    },
  };
}
