// The state's `steers`: what the clients see of the steers sent to the run under way until the model
// reads them. Pure functions over the state; the run driver decides when each applies.
import type { DeltaOperation, HarnessState, JSONValue, QueuedSteer } from "@harness/protocol";
import { appendTo } from "./array-ops.ts";

/** `message` was sent to the run under way: listed as "sending". */
export function steerSentOps(state: HarnessState, message: string): DeltaOperation[] {
  const entry: QueuedSteer = { message, status: "sending" };
  return [appendTo(["steers"], state.steers, entry as JSONValue)];
}

/** The run took `message`: its oldest entry still "sending" is "queued". Nothing when there is none
 * (the model read it before the runner's answer came, or the run ended). */
export function steerQueuedOps(state: HarnessState, message: string): DeltaOperation[] {
  const i = (state.steers ?? []).findIndex((steer) => steer.status === "sending" && steer.message === message);
  return i < 0 ? [] : [{ type: "set", path: ["steers", String(i), "status"], value: "queued" }];
}

/** The model read `text`, a user message of one or more steers: the entries it holds go (as the run
 * driver forgets them). */
export function steersReadOps(state: HarnessState, text: string): DeltaOperation[] {
  const steers = state.steers ?? [];
  const left = steers.filter((steer) => !text.includes(steer.message));
  return left.length === steers.length ? [] : [{ type: "set", path: ["steers"], value: left as JSONValue }];
}

/** The runner refused `message` (its sender hears why): its oldest entry goes. */
export function steerDroppedOps(state: HarnessState, message: string): DeltaOperation[] {
  const steers = state.steers ?? [];
  const i = steers.findIndex((steer) => steer.message === message);
  return i < 0 ? [] : [{ type: "set", path: ["steers"], value: steers.filter((_, k) => k !== i) as JSONValue }];
}

/** What a run's end empties: the approvals it waited for and the steers it did not pass on (sent
 * on as the next prompt, or dropped with word to their senders). */
export function runWaitsClearedOps(state: HarnessState): DeltaOperation[] {
  const ops: DeltaOperation[] = [];
  if (state.pendingApprovals?.length) ops.push({ type: "set", path: ["pendingApprovals"], value: [] });
  if (state.steers?.length) ops.push({ type: "set", path: ["steers"], value: [] });
  return ops;
}
