// An execution's events in order, with an `artifact` event for each file its run makes, announced
// as it is seen (a file's details are read from the workspace, which takes a moment): the events
// that come meanwhile wait behind it, so that `done` still comes last. A file already gone when it
// is looked at is not announced (nor listed); its id is still taken.
import { inOrder } from "@harness/runner/in-order";
import type { ArtifactSummary } from "./artifacts.ts";
import type { ExecutionEvent } from "./run-watch.ts";

/** `lookUp(from, seen)`: the artifacts from the one of id `from + 1` on among the files the first
 * `seen` names the run gave (RunWatch.touched) lead to, and how many files those are. */
export type ArtifactLookUp = (from: number, seen: number) => Promise<{ artifacts: ArtifactSummary[]; count: number }>;

export function artifactFeed(push: (event: ExecutionEvent) => void, lookUp: ArtifactLookUp, log: (line: string) => void) {
  let announced = 0;
  // The announcements, and the events after them, in their turn.
  const order = inOrder((error: unknown) => log(`executions: cannot announce an artifact: ${(error as Error).message}`));
  return {
    event(event: ExecutionEvent): void {
      if (order.pending()) order.later(() => push(event));
      else push(event);
    },
    /** The run made files (`seen`: how many names it has given now): those not yet announced are,
     * before the events that come after this. */
    touched(seen: number): void {
      order.later(async () => {
        const found = await lookUp(announced, seen);
        announced = Math.max(announced, found.count);
        for (const artifact of found.artifacts) push({ type: "artifact", ...artifact });
      });
    },
  };
}
