// An execution's events in order, with an `artifact` event for each file its run makes, announced
// as it is seen (a file's details are read from the workspace, which takes a moment): the events
// that come meanwhile wait behind it, so that `done` still comes last. A file already gone when it
// is looked at is not announced (nor listed); its id is still taken.
import type { ArtifactSummary } from "./artifacts.ts";
import type { ExecutionEvent } from "./run-watch.ts";

/** `lookUp(from, seen)`: the artifacts from the one of id `from + 1` on among the files the first
 * `seen` names the run gave (RunWatch.touched) lead to, and how many files those are. */
export type ArtifactLookUp = (from: number, seen: number) => Promise<{ artifacts: ArtifactSummary[]; count: number }>;

export function artifactFeed(push: (event: ExecutionEvent) => void, lookUp: ArtifactLookUp, log: (line: string) => void) {
  let announced = 0;
  let queue: Promise<void> | undefined;
  let waiting = 0;
  /** Runs `work` after what waits already; nothing waits in most runs, and events go at once. */
  function later(work: () => void | Promise<void>): void {
    waiting++;
    queue = (queue ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => log(`executions: cannot announce an artifact: ${(error as Error).message}`))
      .finally(() => {
        if (--waiting === 0) queue = undefined;
      });
  }
  return {
    event(event: ExecutionEvent): void {
      if (queue) later(() => push(event));
      else push(event);
    },
    /** The run made files (`seen`: how many names it has given now): those not yet announced are,
     * before the events that come after this. */
    touched(seen: number): void {
      later(async () => {
        const found = await lookUp(announced, seen);
        announced = Math.max(announced, found.count);
        for (const artifact of found.artifacts) push({ type: "artifact", ...artifact });
      });
    },
  };
}
