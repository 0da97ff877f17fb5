// The data directory is ./.harness by default, often inside the user's project: it holds the
// conversations, the database and the workspaces, none of which belong in the project's history.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Puts a .gitignore of everything in `dir`, unless one is there already (the user's, kept as is).
 * A directory that takes no file is left to the data directory's lock to report. */
export function ignoredByGit(dir: string): void {
  try {
    writeFileSync(join(dir, ".gitignore"), "# Harness's sessions, database and workspaces: kept out of git.\n*\n", { flag: "wx" });
  } catch {
    // There already, or unwritable: see above.
  }
}
