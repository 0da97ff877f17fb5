// Where the sessions of a server on one project (`harness serve --project`, `harness chat --local`)
// are kept: ~/.harness/projects/<the directory's name>-<a hash of its path>, outside the project.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/** `dir` as the real path the server will see (a missing directory is left as given, for the
 * server to name). */
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
