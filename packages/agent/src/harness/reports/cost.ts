// The report /cost answers with, without a model call: what the conversation has spent so far. Its
// own module, for a backend that counts the conversation without the agent loop (claude-code).
import { priceOf } from "@harness/llm";
import type { ConversationSpend } from "../resources.ts";

/** The conversation's usage and cost so far, its model calls (its sub-agents' and hooks' included)
 * and how long they and the conversation took. `model`: the conversation's, named when no call's
 * price is known. */
export function costReport(spent: ConversationSpend, now = Date.now(), model?: string): string {
  const { usage } = spent;
  const searches = usage.webSearchRequests ? `, ${usage.webSearchRequests} web search${usage.webSearchRequests === 1 ? "" : "es"}` : "";
  const unknown = usage.unreportedCalls ? ` — not known for ${usage.unreportedCalls} of ${spent.calls} model call${spent.calls === 1 ? "" : "s"} (their server reported no usage)` : "";
  const rows: [string, string][] = [
    ["Total cost:", costText(spent, model)],
    ["Total duration (API):", duration(spent.apiMs)],
    ["Total duration (wall):", duration(now - spent.startedAt)],
    ["Model calls:", String(spent.calls)],
    [
      "Usage:",
      `${tokenCount(usage.inputTokens)} input, ${tokenCount(usage.outputTokens)} output, ${tokenCount(usage.cacheReadTokens ?? 0)} cache read, ${tokenCount(usage.cacheWriteTokens ?? 0)} cache write${searches}${unknown}`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)} ${value}`).join("\n");
}

/** What the calls cost, as far as it is known: a price missing from the list is not a price of 0.
 * `model` is named only when its price is missing: the calls may have been another model's. */
function costText({ usage, calls }: ConversationSpend, model: string | undefined): string {
  const unpriced = usage.unpricedCalls ?? 0;
  if (usage.costUsd === undefined && calls > 0) return `not known (${model && !priceOf(model) ? `no price for ${model}` : "the price of the model is not known"})`;
  const known = `$${(usage.costUsd ?? 0).toFixed(4)}`;
  return unpriced > 0 ? `${known} + ${unpriced} call${unpriced === 1 ? "" : "s"} of unknown price` : known;
}

/** 743, 3.2k, 200k. */
export function tokenCount(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  const thousands = tokens / 1000;
  return Number.isInteger(thousands) && thousands >= 100 ? `${thousands}k` : `${thousands.toFixed(1)}k`;
}

/** 0.8s, 12.3s, 4m 5.0s, 1h 2m 3.0s. */
function duration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = `${(seconds % 60).toFixed(1)}s`;
  if (hours > 0) return `${hours}h ${minutes}m ${rest}`;
  return minutes > 0 ? `${minutes}m ${rest}` : rest;
}
