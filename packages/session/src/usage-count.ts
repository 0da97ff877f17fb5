// The session's usage accounting, pure: a run's model calls counted as they end (each once, by its
// id), its end's totals counted from before them, and a cancelled run's late end. Totals only
// grow, each from the one before; a runner's report is checked to be made of counts.
import type { ConversationSpent, DeltaOperation, HarnessState, JSONValue, RunnerEvent, Usage } from "@harness/protocol";
import type { RunCursor, Translation } from "./translate.ts";

/** `calls`: the usage counted of each of the run's latest calls that came with an id (at most
 * MAX_LIVE_CALLS, the oldest forgotten first): one reported again is counted once. */
export type LiveCount = { usageBefore?: Usage; spentBefore?: ConversationSpent; counted: Usage; calls?: Record<string, Usage> };

/** Calls a run remembers by id: a call is reported again soon after, if at all (a sub-agent's last
 * call once it finishes, a stream read again), and the run record is stored with every batch. */
export const MAX_LIVE_CALLS = 64;

/** The counts a usage may hold besides its input and output tokens. */
const OPTIONAL_USAGE_KEYS = ["cacheReadTokens", "cacheWriteTokens", "webSearchRequests", "costUsd", "unpricedCalls", "unreportedCalls"] as const;
const USAGE_KEYS = ["inputTokens", "outputTokens", ...OPTIONAL_USAGE_KEYS] as const;

export function addUsage(total: Usage | undefined, run: Usage): Usage {
  if (!total) return { ...run };
  const sum: Usage = { inputTokens: total.inputTokens + run.inputTokens, outputTokens: total.outputTokens + run.outputTokens };
  for (const key of OPTIONAL_USAGE_KEYS) {
    if (total[key] !== undefined || run[key] !== undefined) sum[key] = (total[key] ?? 0) + (run[key] ?? 0);
  }
  return sum;
}

/** What `usage` says beyond `counted`, key by key, never below zero. */
export function usageBeyond(usage: Usage, counted: Usage): Usage {
  const rest: Usage = { inputTokens: Math.max(0, usage.inputTokens - counted.inputTokens), outputTokens: Math.max(0, usage.outputTokens - counted.outputTokens) };
  for (const key of OPTIONAL_USAGE_KEYS) {
    if (usage[key] !== undefined) rest[key] = Math.max(0, usage[key] - (counted[key] ?? 0));
  }
  return rest;
}

/** The operations that count a run's end in the conversation's totals: its usage added to the
 * session's, its `spent` kept (see spentOp). Totals only grow: a usage that is not made of counts
 * (finite, not below zero) is left out. */
export function totalsOps(state: HarnessState, end: { usage?: Usage; spent?: ConversationSpent }): DeltaOperation[] {
  const ops: DeltaOperation[] = [];
  if (end.usage && isCounts(end.usage)) ops.push({ type: "set", path: ["usage"], value: addUsage(state.usage, end.usage) as JSONValue });
  const spent = end.spent && spentOp(state, end.spent);
  if (spent) ops.push(spent);
  return ops;
}

/** The operation that keeps a run end's totals of the conversation (/cost, sent with the next
 * query), unless the session holds later ones: the end of a cancelled run can come after the next
 * run's. Totals only grow, each from the one before: one that is lower than the totals held in any
 * of its counts, or that is not made of counts, is not kept. */
export function spentOp(state: HarnessState, spent: ConversationSpent): DeltaOperation | undefined {
  if (!isCounts(spent.usage) || ![spent.calls, spent.apiMs, spent.wallMs].every(isCount)) return undefined;
  const held = state.spent;
  if (held && (spent.calls < held.calls || spent.apiMs < held.apiMs || spent.wallMs < held.wallMs)) return undefined;
  if (held && USAGE_KEYS.some((key) => (spent.usage[key] ?? 0) < (held.usage[key] ?? 0))) return undefined;
  return { type: "set", path: ["spent"], value: spent as JSONValue };
}

/** For a cancelled run's late end whose `spent` the session does not keep because it holds later
 * totals (the next run has counted calls since): the operation that adds to them what the late
 * end says beyond `counted`, the totals the session held when the run was cancelled (its calls
 * reported until then included). The run's late part (calls it had not reported, its API time)
 * still counts in the conversation's; the next run's end, from a runner that counted it too, says
 * the same. Undefined when there is nothing beyond, or the end is not made of counts. */
export function lateSpentOp(state: HarnessState, spent: ConversationSpent, counted: ConversationSpent): DeltaOperation | undefined {
  const held = state.spent;
  if (!held || !isCounts(spent.usage) || ![spent.calls, spent.apiMs, spent.wallMs].every(isCount)) return undefined;
  const late = {
    usage: usageBeyond(spent.usage, counted.usage),
    calls: Math.max(0, spent.calls - counted.calls),
    apiMs: Math.max(0, spent.apiMs - counted.apiMs),
    wallMs: Math.max(0, spent.wallMs - counted.wallMs),
  };
  const nothing = late.calls === 0 && late.apiMs === 0 && late.wallMs === 0 && USAGE_KEYS.every((key) => !late.usage[key]);
  if (nothing) return undefined;
  const value: ConversationSpent = { usage: addUsage(held.usage, late.usage), calls: held.calls + late.calls, apiMs: held.apiMs + late.apiMs, wallMs: held.wallMs + late.wallMs };
  return { type: "set", path: ["spent"], value: value as JSONValue };
}

/** A runner's report is not trusted to be well formed (the session does not parse its events). */
function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

export function isCounts(usage: Usage): boolean {
  return isCount(usage.inputTokens) && isCount(usage.outputTokens) && USAGE_KEYS.every((key) => usage[key] === undefined || isCount(usage[key]));
}

/** A model call of the run finished: its usage joins the session's usage and the conversation's
 * totals at once (`calls` one more; the times move at the run's end), and a main-agent call of the
 * conversation (not one beside it) is the context's fill now. Only the keys that changed are sent.
 * A call reported again under its id replaces what was counted of it: the totals move by the
 * difference, `calls` not at all. A usage not made of counts is ignored. */
export function callCompleted(state: HarnessState, cursor: RunCursor, event: Extract<RunnerEvent, { type: "call.completed" }>): Translation {
  if (!event.usage || !isCounts(event.usage)) return { operations: [], cursor };
  const live: LiveCount = cursor.live ?? { counted: { inputTokens: 0, outputTokens: 0 }, ...(state.usage && { usageBefore: state.usage }), ...(state.spent && { spentBefore: state.spent }) };
  const earlier = event.callId === undefined ? undefined : live.calls?.[event.callId];
  const added = earlier ? difference(event.usage, earlier) : event.usage;
  const usage = addUsage(state.usage, added);
  const spent = state.spent && addUsage(state.spent.usage, added);
  if (!isCounts(usage) || (spent && !isCounts(spent))) return { operations: [], cursor };
  const ops = changedOps(["usage"], state.usage, usage);
  if (state.spent && spent) {
    ops.push(...changedOps(["spent", "usage"], state.spent.usage, spent));
    if (!earlier) ops.push({ type: "set", path: ["spent", "calls"], value: state.spent.calls + 1 });
  }
  if (!event.agentId && !event.side) ops.push({ type: "set", path: ["lastCall"], value: event.usage as JSONValue });
  const next: LiveCount = { ...live, counted: addUsage(live.counted, added) };
  if (event.callId !== undefined) next.calls = rememberCall(live.calls, event.callId, event.usage);
  return { operations: ops, cursor: { ...cursor, live: next } };
}

/** `usage` less `earlier`, key by key (below zero where it is lower). */
function difference(usage: Usage, earlier: Usage): Usage {
  const diff: Usage = { inputTokens: usage.inputTokens - earlier.inputTokens, outputTokens: usage.outputTokens - earlier.outputTokens };
  for (const key of OPTIONAL_USAGE_KEYS) {
    if (usage[key] !== undefined || earlier[key] !== undefined) diff[key] = (usage[key] ?? 0) - (earlier[key] ?? 0);
  }
  return diff;
}

function rememberCall(calls: Record<string, Usage> | undefined, id: string, usage: Usage): Record<string, Usage> {
  const next = { ...calls };
  delete next[id];
  next[id] = usage;
  const ids = Object.keys(next);
  for (const old of ids.slice(0, Math.max(0, ids.length - MAX_LIVE_CALLS))) delete next[old];
  return next;
}

/** Sets at `path` the keys of `next` that differ from `before` (the whole value when there is none). */
function changedOps(path: string[], before: Usage | undefined, next: Usage): DeltaOperation[] {
  if (!before) return [{ type: "set", path, value: next as JSONValue }];
  return USAGE_KEYS.filter((key) => next[key] !== undefined && next[key] !== before[key]).map((key) => ({ type: "set", path: [...path, key], value: next[key]! }));
}

/** The totals a run's end sets: counted from those held before its first reported call, so that
 * they are what they would be had no call been reported on the way; what the calls added is taken
 * back where the end says otherwise (a spent that is not kept, a usage not made of counts). An end
 * that says nothing of them (a run that failed without counting) keeps what the calls reported.
 * What joined the usage meanwhile from elsewhere (a cancelled run's late end) stays in it. */
export function endTotalsOps(state: HarnessState, cursor: RunCursor, end: { usage?: Usage; spent?: ConversationSpent }): DeltaOperation[] {
  const live = cursor.live;
  if (!live) return totalsOps(state, end);
  const before: HarnessState = { ...state, usage: addedElsewhere(state.usage, live), spent: live.spentBefore };
  const ops = totalsOps(before, end);
  const usageSet = ops.some((op) => op.path[0] === "usage");
  const spentSet = ops.some((op) => op.path[0] === "spent");
  if (!usageSet && before.usage && end.usage !== undefined) ops.push({ type: "set", path: ["usage"], value: before.usage as JSONValue });
  if (!spentSet && live.spentBefore && end.spent !== undefined) ops.push({ type: "set", path: ["spent"], value: live.spentBefore as JSONValue });
  return ops;
}

/** The usage held before the run's first reported call, plus what joined the usage since other than
 * the run's calls: the usage held now less those calls. Counts only: a cost that differs by no more
 * than the rounding of its sums is the same. */
function addedElsewhere(usage: Usage | undefined, live: LiveCount): Usage | undefined {
  if (!usage) return live.usageBefore;
  const expected = addUsage(live.usageBefore, live.counted);
  const extra: Usage = { inputTokens: usage.inputTokens - expected.inputTokens, outputTokens: usage.outputTokens - expected.outputTokens };
  for (const key of OPTIONAL_USAGE_KEYS) {
    const more = (usage[key] ?? 0) - (expected[key] ?? 0);
    if (Math.abs(more) > (key === "costUsd" ? 1e-9 : 0)) extra[key] = more;
  }
  const none = extra.inputTokens === 0 && extra.outputTokens === 0 && Object.keys(extra).length === 2;
  return none || !isCounts(extra) ? live.usageBefore : addUsage(live.usageBefore, extra);
}
