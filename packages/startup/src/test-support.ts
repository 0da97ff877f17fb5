import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./places.ts";

/** A directory of the test's own beside the real bundles, so that the bare imports a bundle leaves
 * to Node resolve as they do from there. Removed after the test. */
export function buildDir(t: { after(fn: () => void): void }): string {
  const dir = join(ROOT, "node_modules", ".cache", "harness", "bundles", `test-${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
