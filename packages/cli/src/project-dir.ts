// Where the sessions of a server on one project (`harness serve --project`, `harness chat --local`)
// are kept: ~/.harness/projects/<the directory's name>-<a hash of its path>, outside the project.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/** `dir`, from the working directory, with the symbolic links on its path resolved: the path a
 * server or a run's history sees (a missing directory is left as given, for them to name). */
export function projectPath(dir: string): string {
  const absolute = resolve(dir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

export function projectDataDir(project: string, home = homedir()): string {
  const name = basename(project).replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 64) || "root";
  return join(home, ".harness", "projects", `${name}-${createHash("sha256").update(project).digest("hex").slice(0, 12)}`);
}
