// A process's startup bundle: its entry and every module of the workspace's packages and of zod that
// the entry imports, as ES modules split where the sources import dynamically (written by
// build.ts). Node's loader spends about half a millisecond on each module it resolves, reads and
// links, and `harness run` loads some 340 of them before its first model request; from the bundle
// it asks about a quarter sooner (bench/run-start.ts). A bundle is used only while every file it
// holds is as it was when it was written (same size and ctime); otherwise the sources load as usual
// and a process in the background writes the bundles again for the starts after.
// HARNESS_BUNDLE=0 turns them off.
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { markStartedFrom } from "./from-bundle.ts";
import { useBuild } from "./in-use.ts";
import { bundleIsFresh, lockState, ROOT, type BundlePlace } from "./places.ts";

export { CLI_BUNDLE, RUNNER_BUNDLE } from "./places.ts";

/** Runs the entry: from its bundle when that is fresh (the build it names recorded as in use while
 * this process lives: in-use.ts), else from its sources (and the bundle is written again in the
 * background where that can help). A bundle that cannot be loaded (a file of it gone or damaged) is
 * passed over for the sources; its loading fails before any of its code runs, so nothing runs
 * twice. */
export async function loadEntry(place: BundlePlace, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (freshBundle(env, place) !== undefined) {
    const use = useBuild(place.bundle);
    markStartedFrom(place.bundle);
    try {
      await import(use.url);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ERR_MODULE_NOT_FOUND" && !(error instanceof SyntaxError)) throw error;
      use.release();
    }
  }
  markStartedFrom(undefined);
  await import(pathToFileURL(place.entry).href);
}

/** The URL of the fresh bundle, or undefined (a rebuild then started where one can help). */
export function freshBundle(env: NodeJS.ProcessEnv, place: BundlePlace): string | undefined {
  if (env.HARNESS_BUNDLE === "0") return undefined;
  if (bundleIsFresh(place)) return pathToFileURL(place.bundle).href;
  rebuildInBackground(env, place);
  return undefined;
}

/** Starts the builder detached, unless esbuild is not installed, the bundle's directory cannot be
 * written, another process is writing it, or a build failed a short while ago. Never throws: the
 * sources are loading anyway. */
function rebuildInBackground(env: NodeJS.ProcessEnv, place: BundlePlace): void {
  try {
    if (!existsSync(join(ROOT, "node_modules", "esbuild", "package.json"))) return;
    accessSync(nearestDirectory(dirname(place.bundle)), constants.W_OK);
    if (lockState(place.lock).kind !== "none") return;
    const { spawn } = process.getBuiltinModule("node:child_process");
    spawn(process.execPath, [place.builder], { detached: true, stdio: "ignore", env }).unref();
  } catch {
    // Not writable, or no process could be started: this start and the next load the sources.
  }
}

/** `dir`, or the nearest of its parents that exists (the one the builder's mkdir writes in). */
function nearestDirectory(dir: string): string {
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
