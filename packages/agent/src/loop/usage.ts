import { pricedCall } from "@harness/llm";
import type { Usage } from "@harness/protocol";

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

/** Adds `next` into `total` in place; optional counters appear once any call reports them. */
export function addUsage(total: Usage, next: Usage): void {
  total.inputTokens += next.inputTokens;
  total.outputTokens += next.outputTokens;
  if (next.cacheReadTokens !== undefined) total.cacheReadTokens = (total.cacheReadTokens ?? 0) + next.cacheReadTokens;
  if (next.cacheWriteTokens !== undefined) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + next.cacheWriteTokens;
  if (next.webSearchRequests !== undefined) total.webSearchRequests = (total.webSearchRequests ?? 0) + next.webSearchRequests;
  if (next.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + next.costUsd;
  if (next.unpricedCalls) total.unpricedCalls = (total.unpricedCalls ?? 0) + next.unpricedCalls;
  if (next.unreportedCalls) total.unreportedCalls = (total.unreportedCalls ?? 0) + next.unreportedCalls;
}

/** One model call's usage with its price: the provider's own `costUsd`, else the list price of
 * `model` when it is known (a model without a price gets no `costUsd`, but `unpricedCalls`). */
export function pricedUsage(model: string, usage: Usage): Usage {
  if (usage.costUsd !== undefined || usage.unpricedCalls) return { ...usage };
  return pricedCall(model, usage);
}
