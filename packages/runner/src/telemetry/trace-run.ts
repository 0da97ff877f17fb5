// One run's trace, built from the events it emits anyway (AgentEvent), in Claude Code's shape
// (its traces beta) under Harness's names: the run is a harness.interaction span (the child of the
// process's TRACEPARENT when one was given), each model call a harness.llm_request beneath it (a
// failed attempt one with success false), each tool call a harness.tool; a sub-agent's calls go
// beneath the Task call that started it. Where the OpenTelemetry GenAI semantic conventions have a
// name for an attribute it is sent under that name too. As Claude Code's Bash commands do, a tool
// call's processes get TRACEPARENT naming its span (toolEnv), so that what they trace joins the run's. A span is queued once it ends; nothing is
// done per text delta (no handler for it), so a model call's time to first token is not known.
import { randomBytes } from "node:crypto";
import type { AgentEvent, ModelFailure, RunnerQuery, Usage } from "@harness/protocol";
import type { RunOutcome } from "../backend.ts";
import type { ObserveDeps, RunObserver, RunWho } from "./observe-run.ts";
import { nanosOf, STATUS_ERROR, STATUS_OK, type Attributes, type Span } from "./otlp-model.ts";

/** A W3C trace context's ids (TRACEPARENT's): the parent of every run's interaction span. */
export type TraceParent = { traceId: string; spanId: string };

/** The longest prompt, tool input or tool output a span carries, in characters (then cut, with "…"). */
export const MAX_SPAN_TEXT = 4096;
const cut = (text: string) => (text.length > MAX_SPAN_TEXT ? `${text.slice(0, MAX_SPAN_TEXT)}…` : text);

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** TRACEPARENT as W3C Trace Context reads it (version ff, and all-zero ids, are invalid), or an
 * error naming what is wrong with it (never its value: it is not secret, but may be long). */
export function parseTraceParent(text: string): TraceParent | { error: string } {
  const match = TRACEPARENT.exec(text.trim().toLowerCase());
  if (!match || match[1] === "ff" || (match[1] === "00" && match[5] !== undefined)) {
    return { error: "TRACEPARENT must be a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>); runs start traces of their own" };
  }
  if (/^0+$/.test(match[2]) || /^0+$/.test(match[3])) return { error: "TRACEPARENT has an all-zero trace or span id, which W3C makes invalid; runs start traces of their own" };
  return { traceId: match[2], spanId: match[3] };
}

const newId = (bytes: number) => randomBytes(bytes).toString("hex");

/** The GenAI conventions' provider, where the model's name says it plainly. */
const providerOf = (model: string) => (/claude/i.test(model) ? "anthropic" : undefined);

type OpenTool = { spanId: string; parent: string; at: number; name: string; input?: Record<string, unknown> };

/** A run's tracer: a RunObserver, and the variables for a tool call's processes. */
export type RunTracer = RunObserver & { toolEnv(toolUseId: string): Record<string, string> };

export function traceRun(query: RunnerQuery, who: RunWho, deps: ObserveDeps & { parent?: TraceParent }): RunTracer {
  const { exporter, config } = deps;
  const now = deps.now ?? Date.now;
  const startedAt = now();
  const traceId = deps.parent?.traceId ?? newId(16);
  const rootId = newId(8);
  let model = query.model ?? "unknown";
  let callFrom = startedAt;
  const tools = new Map<string, OpenTool>();
  const decisions = new Map<string, { decision: "accept" | "reject"; source: string }>();
  const calls = new Set<string>();
  /** Each tool call's span id, made when first asked for: by its processes' environment or its start, whichever comes first. */
  const toolSpanIds = new Map<string, string>();
  const toolSpanId = (toolUseId: string) => {
    let id = toolSpanIds.get(toolUseId);
    if (id === undefined) toolSpanIds.set(toolUseId, (id = newId(8)));
    return id;
  };

  const standard: Attributes = {
    ...(who.sessionId !== undefined && { "session.id": who.sessionId, "gen_ai.conversation.id": who.sessionId }),
    ...(who.userId !== undefined && { "user.id": who.userId }),
    "app.version": deps.appVersion,
    ...(deps.terminal && { "terminal.type": deps.terminal }),
  };
  const emit = (name: string, spanId: string, parent: string | undefined, from: number, to: number, attributes: Attributes, error?: string) =>
    exporter.span({
      traceId,
      spanId,
      ...(parent && { parentSpanId: parent }),
      name,
      start: nanosOf(from),
      end: nanosOf(Math.max(from, to)),
      attributes: { ...standard, ...attributes, duration_ms: Math.max(0, Math.round(to - from)) },
      status: error === undefined ? { code: STATUS_OK } : { code: STATUS_ERROR, message: cut(error) },
    });
  /** A sub-agent's spans go beneath the Task call that started it, while that call is open. */
  const parentOf = (e: { parentToolUseId?: string }) => (e.parentToolUseId !== undefined && tools.get(e.parentToolUseId)?.spanId) || rootId;
  const modelAttributes = (): Attributes => {
    const provider = providerOf(model);
    return { model, "gen_ai.request.model": model, "gen_ai.operation.name": "chat", ...(provider && { "gen_ai.system": provider, "gen_ai.provider.name": provider }) };
  };

  function call(e: { usage: Usage; callId?: string; parentToolUseId?: string }): void {
    const at = now();
    const { usage } = e;
    // A call reported again (its real counts, learnt late) has its span already.
    if (e.callId !== undefined && calls.has(e.callId)) return;
    if (e.callId !== undefined) calls.add(e.callId);
    const cacheRead = usage.cacheReadTokens ?? 0;
    const cacheCreation = usage.cacheWriteTokens ?? 0;
    if (usage.inputTokens + usage.outputTokens + cacheRead + cacheCreation === 0 && !usage.costUsd) return;
    emit("harness.llm_request", newId(8), parentOf(e), callFrom, at, {
      ...modelAttributes(),
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_read_tokens: cacheRead,
      cache_creation_tokens: cacheCreation,
      "gen_ai.usage.input_tokens": usage.inputTokens,
      "gen_ai.usage.output_tokens": usage.outputTokens,
      cost_usd: { double: usage.costUsd ?? 0 },
      success: true,
    });
    callFrom = at;
  }

  function failedCall(failure: ModelFailure, attempt: number | undefined): void {
    const at = now();
    emit("harness.llm_request", newId(8), rootId, callFrom, at, { ...modelAttributes(), success: false, error: cut(failure.error), ...(failure.status !== undefined && { status_code: failure.status }), ...(attempt !== undefined && { attempt }) }, failure.error);
    callFrom = at;
  }

  function toolDone(e: Extract<AgentEvent, { type: "tool.completed" }>): void {
    const at = now();
    const open = tools.get(e.toolUseId);
    if (!open) return;
    tools.delete(e.toolUseId);
    toolSpanIds.delete(e.toolUseId);
    const decision = decisions.get(e.toolUseId) ?? { decision: e.denied ? "reject" : "accept", source: "config" };
    decisions.delete(e.toolUseId);
    emit("harness.tool", open.spanId, open.parent, open.at, at, {
      ...toolAttributes(open, e.toolUseId),
      success: !e.isError,
      decision_type: decision.decision,
      decision_source: decision.source,
      ...(e.isError && { error: cut(e.output) }),
      ...(config.logToolDetails && { tool_output: cut(e.output) }),
    }, e.isError ? e.output : undefined);
    callFrom = at;
  }

  const toolAttributes = (open: OpenTool, id: string): Attributes => ({
    tool_name: open.name,
    "gen_ai.tool.name": open.name,
    "gen_ai.tool.call.id": id,
    "gen_ai.operation.name": "execute_tool",
    ...(config.logToolDetails && open.input && { tool_input: cut(JSON.stringify(open.input)) }),
  });

  const handlers: { [K in AgentEvent["type"]]?: (event: Extract<AgentEvent, { type: K }>) => void } = {
    "run.ready": (e) => {
      if (e.agentId === undefined) model = e.available.model;
    },
    "call.completed": call,
    "tool.started": (e) => void tools.set(e.toolUseId, { spanId: toolSpanId(e.toolUseId), parent: parentOf(e), at: now(), name: e.toolName, ...(e.input && { input: e.input }) }),
    "tool.completed": toolDone,
    "approval.resolved": (e) => void decisions.set(e.toolUseId, { decision: e.behavior === "allow" ? "accept" : "reject", source: "user" }),
    notice: (e) => {
      if (e.retry) failedCall(e.retry, e.retry.attempt);
    },
  };

  return {
    toolEnv: (toolUseId) => ({ TRACEPARENT: `00-${traceId}-${toolSpanId(toolUseId)}-01` }),
    event(e) {
      const handler = handlers[e.type] as ((event: AgentEvent) => void) | undefined;
      if (handler) handler(e);
    },
    end(outcome) {
      if (outcome?.ok && outcome.model) model = outcome.model;
      if (outcome && !outcome.ok && outcome.modelFailure) failedCall(outcome.modelFailure, outcome.modelFailure.attempt);
      const at = now();
      // A call still open when the run ended (stopped, failed) ends with it, unfinished.
      for (const [id, open] of tools) emit("harness.tool", open.spanId, open.parent, open.at, at, { ...toolAttributes(open, id), success: false }, "the run ended before the call did");
      tools.clear();
      const error = outcome === undefined ? "the run failed" : outcome.ok ? undefined : outcome.message;
      emit("harness.interaction", rootId, deps.parent?.spanId, startedAt, at, {
        "gen_ai.operation.name": "invoke_agent",
        model,
        user_prompt_length: query.prompt.length,
        ...(config.logUserPrompts && { user_prompt: cut(query.prompt) }),
      }, error);
    },
  };
}
