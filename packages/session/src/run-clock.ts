// When the run under way started, kept in the state (runStartedAt) so that a client that joins
// later counts from the real start. Set when the status turns to running from idle or error, kept
// while a call waits for approval, cleared when the run ends: one rule for every way a status
// changes (a submit, run.started, a run's end, a cancel, a host that restarted), applied where the
// session commits its changes.
import type { DeltaOperation, HarnessState } from "@harness/protocol";

const underWay = (status: HarnessState["status"]) => status === "running" || status === "awaiting-approval";

/** The operation that keeps `runStartedAt` true of `after`, the state a change from status `before`
 * made, at time `now`; undefined when it already is. */
export function runClockOp(before: HarnessState["status"], after: HarnessState, now: number): DeltaOperation | undefined {
  if (underWay(after.status)) {
    return underWay(before) ? undefined : { type: "set", path: ["runStartedAt"], value: now };
  }
  if (after.runStartedAt === undefined || after.runStartedAt === null) return undefined;
  return { type: "set", path: ["runStartedAt"], value: null };
}
