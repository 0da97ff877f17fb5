// Where a query may run: its `cwd` must be a directory inside the runner's workspace, links
// resolved. The permission checks follow the working directory and the checkpoints cover the
// workspace, so a run elsewhere would be neither asked about nor rewindable.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isWithin } from "@harness/agent/real-paths";

/** Why `cwd` (relative to `workspace`, or absolute) cannot be a run's directory; undefined when it can. */
export function cwdProblem(cwd: string, workspace: string): string | undefined {
  if (cwd.includes("\0")) return "cwd: must not hold a NUL character";
  const target = path.resolve(workspace, cwd);
  const outside = `cwd: ${cwd} is outside the workspace`;
  if (!isWithin(target, workspace)) return outside;
  let real: string;
  try {
    real = realpathSync.native(target);
    if (!isWithin(real, realpathSync.native(workspace))) return outside;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `cwd: ${cwd} does not exist in the workspace`;
    if (code === "ENOTDIR") return `cwd: ${cwd} is not a directory`;
    return `cwd: ${cwd} cannot be used: ${(error as Error).message}`;
  }
  if (!statSync(real).isDirectory()) return `cwd: ${cwd} is not a directory`;
  return undefined;
}
