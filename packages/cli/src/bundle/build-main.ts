// Writes the startup bundle when it is stale: `node build-main.ts [--wait]`. A start that finds the
// bundle stale runs this in the background; the test and benchmark scripts run it with --wait
// first, so that every process they start loads the same code. Without --wait it leaves the work to
// a process already writing the bundle, and does not try again within a while of a failed build;
// with --wait it waits for such a process, tries whatever failed before, and exits 1 (the reason
// on stderr) if the bundle cannot be written. Either way the reason of a failure stays in the lock
// file (paths.ts) until the next try.
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isFresh } from "@harness/llm/bundled-require";
import { buildBundle } from "./build.ts";
import { CLI_BUNDLE, failedLock, lockState } from "./paths.ts";

const { bundle, entry, lock } = CLI_BUNDLE;

const wait = process.argv.includes("--wait");
const WAIT_MS = 120_000;

/** Takes the lock, or answers why not: "busy" while another live process holds it. */
function takeLock(): "taken" | "busy" {
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

async function main(): Promise<number> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (isFresh(bundle)) return 0;
    if (takeLock() === "taken") break;
    if (!wait) return 0;
    if (Date.now() > deadline) {
      process.stderr.write(`harness: the startup bundle is still being written by another process after ${WAIT_MS / 1000} s\n`);
      return 1;
    }
    await sleep(200);
  }
  try {
    await buildBundle(entry, bundle);
    rmSync(lock, { force: true });
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    writeFileSync(lock, failedLock(reason));
    if (wait) process.stderr.write(`harness: the startup bundle could not be written: ${reason}\n`);
    return 1;
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  // The lock itself could not be taken (an unwritable node_modules, say).
  process.stderr.write(`harness: the startup bundle could not be written: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
