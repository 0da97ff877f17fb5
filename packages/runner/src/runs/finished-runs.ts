// A run of a server (one that keeps running when its stream closes) that ends while nobody follows
// it, its server being down, is written to the workspace's state directory, so that a server that
// comes back after the run has left this runner's memory (ten minutes later) or after the runner
// has gone (its idle exit, a reboot) still gets the run's end, instead of writing the run down as
// interrupted. The file holds the SSE frames the runner would replay (GET /runs/:id/events from the
// start); whoever delivers the run's end from it, or from memory, removes it.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isRunEnd, type RunnerEvent } from "@harness/protocol";
import { eventsOfSse } from "../client/client.ts";

const DIR = "finished-runs";

function fileOf(stateDir: string, requestId: string): string {
  // Encoded, a request id is one file name ("." and ".." cannot come out with the suffix).
  return join(stateDir, DIR, `${encodeURIComponent(requestId)}.sse`);
}

/** Writes the run's frames (from its first event to its last) in one piece: a reader finds the
 * whole file or none. Synchronous, so that no re-attach can deliver the run's end (and forget the
 * file) before it exists: a rare write, made only while the server is away. */
export function keepFinishedRun(stateDir: string, requestId: string, frames: readonly string[]): void {
  const file = fileOf(stateDir, requestId);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, frames.join(""), { mode: 0o600 });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export async function forgetFinishedRun(stateDir: string, requestId: string): Promise<void> {
  await rm(fileOf(stateDir, requestId), { force: true });
}

/** The kept run's events after `afterSeq`, its end last; undefined when no run `requestId` is kept,
 * or when the kept events do not reach back to `afterSeq` (the oldest were no longer kept when it
 * was written). A damaged file is an error that says so. */
export async function readFinishedRun(stateDir: string, requestId: string, afterSeq: number): Promise<RunnerEvent[] | undefined> {
  const file = fileOf(stateDir, requestId);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read the kept end of run ${requestId} (${file}): ${(error as Error).message}`);
  }
  let events: RunnerEvent[];
  try {
    events = eventsOfSse(text);
  } catch (error) {
    throw new Error(`the kept end of run ${requestId} (${file}) is damaged: ${(error as Error).message}`);
  }
  const last = events.at(-1);
  if (!last || !isRunEnd(last)) throw new Error(`the kept end of run ${requestId} (${file}) is damaged: it does not end with the run's last event`);
  if (events[0].seq > afterSeq + 1) return undefined;
  return events.filter((event) => event.seq > afterSeq);
}
