// The last line `harness run --output-format json|stream-json` prints: the run's outcome as one JSON
// object, shaped as Claude Code's result message so that scripts written for `claude -p
// --output-format json` read it unchanged (type, subtype, is_error, result, num_turns, duration_ms,
// duration_api_ms, usage in the API's names, modelUsage, total_cost_usd, permission_denials,
// session_id, uuid). As in Claude Code, the counts are there whatever happened (zero when the run
// failed before any model call), and a failure's reason is in `errors` too.
import { randomUUID } from "node:crypto";
import { contextWindowFor } from "@harness/agent/context-window";
import type { AgentEvent, Usage } from "@harness/protocol";
import type { RunOutcome } from "@harness/runner/headless";

export type RunResult = {
  type: "result";
  subtype: "success" | "error_max_turns" | "error_max_budget_usd" | "error_cancelled" | "error_during_execution" | "error_max_structured_output_retries";
  is_error: boolean;
  /** The reply's final text (success only). */
  result?: string;
  /** With --json-schema, the answer that matches it (success only). */
  structured_output?: Record<string, unknown>;
  /** What went wrong, in words (failures only). */
  error?: string;
  /** The same, as Claude Code's error results carry it (failures only). */
  errors?: string[];
  duration_ms: number;
  /** Of `duration_ms`, the time spent waiting for model calls (sub-agents' included). */
  duration_api_ms: number;
  /** Model calls the run made. */
  num_turns: number;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
    /** Anthropic's server-side tools the run used (its web fetches are its own, never the API's). */
    server_tool_use: { web_search_requests: number; web_fetch_requests: number };
  };
  /** Every model call the run paid for (sub-agents', hooks' and compactions' too), by model. */
  modelUsage: Record<string, ModelUsage>;
  /** A number in Claude Code's format, whatever is known: what the calls of a known price cost,
   * 0 when none has one (/cost says the cost is not known, and how many calls it leaves out). */
  total_cost_usd: number;
  model?: string;
  /** The tool calls the run's permissions refused (rules, mode, hooks; with nobody to approve,
   * every call that would have needed approval), sub-agents' too. */
  permission_denials: PermissionDenial[];
  /** The conversation's id, when it was kept: `harness run --resume <id>` goes on with it. */
  session_id?: string;
  /** This result message's own id, new for each. */
  uuid: string;
};

/** Claude Code's per-model totals, but for what the run does not count (maxOutputTokens).
 * `costUSD` (web searches included) is 0 for a model whose price is not known; `contextWindow` is
 * the window the run compacts against. */
export type ModelUsage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
};

export type PermissionDenial = { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> };

/** Collects the refused calls from the run's events. */
export function permissionDenials() {
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  const denials: PermissionDenial[] = [];
  return {
    denials,
    event(event: AgentEvent): void {
      if (event.type === "tool.started") calls.set(event.toolUseId, { name: event.toolName, input: event.input ?? {} });
      if (event.type !== "tool.completed") return;
      const call = calls.get(event.toolUseId);
      calls.delete(event.toolUseId);
      if (event.denied && call) denials.push({ tool_name: call.name, tool_use_id: event.toolUseId, tool_input: call.input });
    },
  };
}

/** Claude Code's subtype for each way a run fails. */
export function runResult(outcome: RunOutcome, durationMs: number, sessionId: string | undefined, denials: PermissionDenial[] = [], env: NodeJS.ProcessEnv = process.env): RunResult {
  const counts = {
    duration_ms: Math.round(durationMs),
    duration_api_ms: Math.min(Math.round(outcome.apiMs ?? 0), Math.round(durationMs)),
    num_turns: outcome.turns?.length ?? 0,
    usage: apiUsage(outcome.usage ?? { inputTokens: 0, outputTokens: 0 }),
    modelUsage: modelUsage(outcome.modelUsage ?? {}, env),
    total_cost_usd: outcome.usage?.costUsd ?? 0,
    permission_denials: denials,
    uuid: randomUUID(),
  };
  const out: RunResult = outcome.ok
    ? { type: "result", subtype: "success", is_error: false, result: outcome.result, ...counts }
    : {
        type: "result",
        subtype: FAILURES[outcome.reason ?? "other"],
        is_error: true,
        error: outcome.message,
        errors: [outcome.message],
        ...counts,
      };
  if (outcome.ok && outcome.model) out.model = outcome.model;
  if (outcome.ok && outcome.structuredOutput) out.structured_output = outcome.structuredOutput;
  if (sessionId !== undefined) out.session_id = sessionId;
  return out;
}

function modelUsage(byModel: Record<string, Usage>, env: NodeJS.ProcessEnv): Record<string, ModelUsage> {
  const out: Record<string, ModelUsage> = {};
  for (const [model, usage] of Object.entries(byModel)) {
    out[model] = {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadInputTokens: usage.cacheReadTokens ?? 0,
      cacheCreationInputTokens: usage.cacheWriteTokens ?? 0,
      webSearchRequests: usage.webSearchRequests ?? 0,
      costUSD: usage.costUsd ?? 0,
      contextWindow: contextWindowFor(model, env),
    };
  }
  return out;
}

/** The result of a turn the program driving the run interrupted (a control request): no failure, as
 * the Agent SDK takes it, and Claude Code's subtype for a turn that did not finish. */
export function interruptedResult(result: RunResult): RunResult {
  return { ...result, subtype: "error_during_execution", is_error: false, error: "interrupted", errors: ["interrupted"] };
}

const FAILURES = {
  max_turns: "error_max_turns",
  max_budget: "error_max_budget_usd",
  cancelled: "error_cancelled",
  structured_output: "error_max_structured_output_retries",
  other: "error_during_execution",
} as const;

function apiUsage(usage: Usage): NonNullable<RunResult["usage"]> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
    cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
    server_tool_use: { web_search_requests: usage.webSearchRequests ?? 0, web_fetch_requests: 0 },
  };
}
