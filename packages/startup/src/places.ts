// Where the startup bundles of Harness's processes live (the `harness` command, and the runner the
// server starts), and what guards their writing. They sit in the workspace's node_modules, beside
// the model SDKs' bundles: as trusted as the packages themselves, and found by the bare imports they
// leave to Node (the same node_modules).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pidAlive } from "@harness/agent/pid-alive";
import { isFresh } from "@harness/llm/bundled-require";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The bundler (build.ts), which every bundle holds among its files: one written by another
 * version of it is stale however unchanged the sources. */
export const BUNDLER = fileURLToPath(new URL("./build.ts", import.meta.url));

/** A bundle's files: `bundle` (a module that imports the build's entry chunk, its first line the
 * files it holds), `lock` (held while a process writes the bundle: that process's pid; left after a
 * failed build: "failed", the time and the reason, so that starts do not try again at once), the
 * sources' `entry`, and the `builder` script a stale start runs in the background. */
export type BundlePlace = { bundle: string; lock: string; entry: string; builder: string };

function place(name: string, entry: string): BundlePlace {
  const bundle = join(ROOT, "node_modules", ".cache", "harness", "bundles", `${name}.mjs`);
  return { bundle, lock: `${bundle}.lock`, entry: join(ROOT, "packages", entry), builder: fileURLToPath(new URL("./build-main.ts", import.meta.url)) };
}

export const CLI_BUNDLE = place("harness-cli", "cli/src/main.ts");
export const RUNNER_BUNDLE = place("harness-runner", "runner/src/runner-main.ts");
/** Every startup bundle: what build-main.ts writes. */
export const PLACES = [CLI_BUNDLE, RUNNER_BUNDLE];

/** Whether `place`'s bundle can be run: every file it holds as it was written, this checkout's
 * entry and this bundler among them. */
export function bundleIsFresh(place: BundlePlace): boolean {
  return isFresh(place.bundle, [place.entry, BUNDLER]);
}

/** After a failed build, starts wait this long before they try again. */
export const RETRY_AFTER_MS = 10 * 60_000;

export type LockState = { kind: "none" } | { kind: "building"; pid: number } | { kind: "failed"; at: number; reason: string };

/** What `lock` says: a live builder, a recent failure, or nothing that stops a build (no lock, a
 * builder that died, an old failure). */
export function lockState(lock: string, now = Date.now()): LockState {
  let text: string;
  try {
    text = readFileSync(lock, "utf8");
  } catch {
    return { kind: "none" };
  }
  const failed = /^failed (\d+)\n([\s\S]*)$/.exec(text);
  if (failed) {
    const at = Number(failed[1]);
    return now - at < RETRY_AFTER_MS ? { kind: "failed", at, reason: failed[2] } : { kind: "none" };
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? { kind: "building", pid } : { kind: "none" };
}

/** The lock's text after a failed build. */
export const failedLock = (reason: string, at = Date.now()) => `failed ${at}\n${reason}`;
