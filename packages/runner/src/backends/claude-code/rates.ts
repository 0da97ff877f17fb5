// Pricing a Claude Code call as it ends, as Claude Code itself prices it. The conversation's cost is
// Claude Code's figure: its results' total_cost_usd (what its own /cost shows and its budget counts).
// Its prices are not told call by call, and may differ from the harness's price list (a model's
// price changed, or one the list prices by its family). What its results tell, per model, is the
// cost of all its calls so far: their ratio to the list's price of the same tokens is the rate a
// call of that model is priced at, so that the figures a run reports on the way are the ones its
// end gives, not an estimate the end takes back.
import type { ModelUsage, SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import type { Usage } from "@harness/protocol";
import { costUsd, priceOf } from "@harness/llm";

/** Per model: Claude Code's price as a multiple of the price list's. */
export type Rates = Record<string, number>;

/** The rates a result's per-model totals show; models without a list price or any cost are left out. */
export function ratesOf(result: SDKResultMessage): Rates {
  const rates: Rates = {};
  for (const [model, totals] of Object.entries(result.modelUsage ?? {}) as [string, ModelUsage][]) {
    const list = listCost(model, totals);
    const rate = totals.costUSD / list;
    if (list > 0 && Number.isFinite(rate) && rate > 0) rates[model] = rate;
  }
  return rates;
}

/** A call's usage priced at Claude Code's rate for `model` (the list's until one is known); unpriced
 * when the list has no price for it. */
export function pricedCall(model: string | undefined, usage: Usage, rates: Rates): Usage {
  if (!model || !priceOf(model)) return usage;
  return { ...usage, costUsd: costUsd(model, usage) * (rates[model] ?? 1) };
}

/** The list price of a model's totals at its base rates: the totals of many calls say nothing of
 * how large each call's prompt was, so a long-context tier is not applied to their sum. */
function listCost(model: string, totals: ModelUsage): number {
  const price = priceOf(model);
  if (!price) return 0;
  const count = (n: number | undefined) => (typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0);
  const micro =
    count(totals.inputTokens) * price.input +
    count(totals.outputTokens) * price.output +
    count(totals.cacheCreationInputTokens) * price.cacheWrite +
    count(totals.cacheReadInputTokens) * price.cacheRead;
  return micro / 1_000_000 + costUsd(model, { inputTokens: 0, outputTokens: 0, webSearchRequests: count(totals.webSearchRequests) });
}
