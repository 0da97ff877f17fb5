// Writes the startup bundles that are stale: `node build-main.ts [--wait]`. A start that finds its
// bundle stale runs this in the background; the test and benchmark scripts run it with --wait
// first, so that every process they start loads the same code. Without --wait it leaves a bundle to
// a process already writing it, and does not try one again within a while of a failed build; with
// --wait it waits for such a process, tries whatever failed before, and exits 1 (the reasons on
// stderr) if a bundle cannot be written. Either way the reason of a failure stays in the bundle's
// lock file (places.ts) until the next try.
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { buildBundle } from "./build.ts";
import { bundleIsFresh, failedLock, lockState, PLACES, type BundlePlace } from "./places.ts";

const wait = process.argv.includes("--wait");
const WAIT_MS = 120_000;

/** Takes `lock`, or answers why not: "busy" while another live process holds it. */
function takeLock(lock: string): "taken" | "busy" {
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return "taken";
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const state = lockState(lock);
    if (state.kind === "building" || (state.kind === "failed" && !wait)) return "busy";
    rmSync(lock, { force: true });
  }
}

/** Undefined once the bundle is fresh (or left to another process), else why it is not. */
async function write(place: BundlePlace): Promise<string | undefined> {
  const { bundle, entry, lock } = place;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (bundleIsFresh(place)) return undefined;
    if (takeLock(lock) === "taken") break;
    if (!wait) return undefined;
    if (Date.now() > deadline) return `${bundle} is still being written by another process after ${WAIT_MS / 1000} s`;
    await sleep(200);
  }
  try {
    await buildBundle(entry, bundle);
    rmSync(lock, { force: true });
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    writeFileSync(lock, failedLock(reason));
    return `${bundle}: ${reason}`;
  }
}

let failed = false;
for (const place of PLACES) {
  let problem: string | undefined;
  try {
    problem = await write(place);
  } catch (error) {
    // The lock itself could not be taken (an unwritable node_modules, say).
    problem = `${place.bundle}: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (problem === undefined) continue;
  failed = true;
  if (wait) process.stderr.write(`harness: a startup bundle could not be written: ${problem}\n`);
}
process.exitCode = failed ? 1 : 0;
