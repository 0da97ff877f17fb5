// What a model call cost, from the list prices of Claude models (USD per million tokens), plus
// Anthropic's server-side web searches. A model without a price here (another vendor's, or one on a
// gateway) costs what is not known, which is not 0; one served on this machine costs nothing.
import type { Usage } from "@harness/protocol";

export type ModelPrice = {
  input: number;
  output: number;
  /** 5-minute cache writes (1.25 × input); the usage we get does not tell 1-hour writes apart. */
  cacheWrite: number;
  cacheRead: number;
  /** Prices for a request whose prompt (input + cache reads + cache writes) exceeds `aboveTokens`
   * (the 1M-context tier of Sonnet 4 and 4.5). */
  longContext?: Omit<ModelPrice, "longContext"> & { aboveTokens: number };
};

const OPUS_4_5: ModelPrice = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };
const OPUS_4: ModelPrice = { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 };
const SONNET: ModelPrice = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const SONNET_4_LONG: ModelPrice = {
  ...SONNET,
  longContext: { input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6, aboveTokens: 200_000 },
};
const HAIKU_4_5: ModelPrice = { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 };
const HAIKU_3_5: ModelPrice = { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 };
const HAIKU_3: ModelPrice = { input: 0.25, output: 1.25, cacheWrite: 0.3, cacheRead: 0.03 };

/** Matched by the longest prefix that ends at a version boundary (see `priceOf`). The bare family
 * names price versions newer than this table at their family's current rate. */
const PRICES: readonly (readonly [prefix: string, price: ModelPrice])[] = [
  ["claude-opus", OPUS_4_5],
  ["claude-opus-4-6", OPUS_4_5],
  ["claude-opus-4-5", OPUS_4_5],
  ["claude-opus-4-1", OPUS_4],
  ["claude-opus-4-0", OPUS_4],
  ["claude-opus-4", OPUS_4],
  ["claude-3-opus", OPUS_4],
  ["claude-sonnet", SONNET],
  ["claude-sonnet-4-6", SONNET],
  ["claude-sonnet-4-5", SONNET_4_LONG],
  ["claude-sonnet-4-0", SONNET_4_LONG],
  ["claude-sonnet-4", SONNET_4_LONG],
  ["claude-3-7-sonnet", SONNET],
  ["claude-3-5-sonnet", SONNET],
  ["claude-haiku", HAIKU_4_5],
  ["claude-haiku-4-5", HAIKU_4_5],
  ["claude-3-5-haiku", HAIKU_3_5],
  ["claude-3-haiku", HAIKU_3],
];

/** The list price of a model id, or undefined when it is not a known Claude model. Ids from other
 * platforms are understood too: "anthropic/claude-sonnet-4.5" (gateways), "claude-opus-4-1@20250805"
 * (Vertex), "us.anthropic.claude-sonnet-4-20250514-v1:0" (Bedrock), "claude-sonnet-4-5[1m]". */
export function priceOf(model: string): ModelPrice | undefined {
  const start = model.indexOf("claude-");
  if (start === -1) return undefined;
  // Gateways write versions with dots: claude-sonnet-4.5.
  const id = model.slice(start).toLowerCase().replace(/(\d)\.(\d)/g, "$1-$2");
  let best: ModelPrice | undefined;
  let bestLength = 0;
  for (const [prefix, price] of PRICES) {
    if (prefix.length > bestLength && id.startsWith(prefix) && atVersionBoundary(id, prefix.length)) {
      best = price;
      bestLength = prefix.length;
    }
  }
  return best;
}

/** A family name ("claude-opus") matches every version of it. A versioned prefix ("claude-opus-4")
 * matches "claude-opus-4-20250514" and "claude-opus-4@…" but not "claude-opus-4-5": what follows it
 * must not continue the version number (an 8-digit date does not). */
function atVersionBoundary(id: string, end: number): boolean {
  if (end === id.length) return true;
  const next = id[end];
  if (!/\d/.test(id[end - 1])) return !/[a-z]/.test(next);
  if (/\d/.test(next)) return false;
  if (next !== "-") return true;
  const digits = /^\d+/.exec(id.slice(end + 1));
  return digits === null || digits[0].length === 8;
}

/** Anthropic's fee for one server-side web search: $10 per 1,000, with every Claude model. */
const WEB_SEARCH_USD = 0.01;

/** The price in USD of one call's usage, its web searches included; 0 for a model without a known
 * price (callers that show it use `pricedCall`, which says "not known" instead). */
export function costUsd(model: string, usage: Usage): number {
  const price = priceOf(model);
  if (!price) return 0;
  return tokensCost(price, usage) + (usage.webSearchRequests ?? 0) * WEB_SEARCH_USD;
}

function tokensCost(price: ModelPrice, usage: Usage): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const long = price.longContext;
  const rates = long && usage.inputTokens + cacheRead + cacheWrite > long.aboveTokens ? long : price;
  const micro = usage.inputTokens * rates.input + usage.outputTokens * rates.output + cacheWrite * rates.cacheWrite + cacheRead * rates.cacheRead;
  return micro / 1_000_000;
}

/** One call's `usage` with its cost: `costUsd` when the price of `model` is known or the call was
 * free (`free`: its server runs on this machine), else `unpricedCalls: 1` and no `costUsd`. */
export function pricedCall(model: string, usage: Usage, free = false): Usage {
  const { costUsd: _, unpricedCalls: __, ...rest } = usage;
  if (free) return { ...rest, costUsd: 0 };
  return priceOf(model) ? { ...rest, costUsd: costUsd(model, usage) } : { ...rest, unpricedCalls: 1 };
}
