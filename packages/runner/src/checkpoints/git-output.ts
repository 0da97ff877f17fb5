// Reading what git prints: the changes of a diff, the files `git add` could not store.
import type { FileChange } from "@harness/protocol";

/** The paths of a failed `git add --ignore-errors` (its stderr) when its only errors were names git
 * refuses to store; empty when there were others. */
export function unstorablePaths(stderr: string): string[] {
  const paths: string[] = [];
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("error: ") && !line.startsWith("fatal: ")) continue;
    const invalid = /^error: invalid path '(.*)'$/.exec(line);
    if (invalid) paths.push(invalid[1]);
    else if (!/^error: unable to add '.*' to index$/.test(line)) return [];
  }
  return paths;
}

/** The paths that are gitlinks in the checkpoint, from `--raw -z` output of a diff from now to it. */
export function gitlinksTo(raw: string): string[] {
  const fields = raw.split("\0");
  const paths: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i].split(" ")[1] === "160000") paths.push(fields[i + 1]);
  return paths;
}

/** Joins `--raw -z` and `--numstat -z` output of a diff from now to the checkpoint. */
export function parseChanges(raw: string, numstat: string): FileChange[] {
  const counts = new Map<string, { added?: number; removed?: number }>();
  const stats = numstat.split("\0");
  for (const record of stats) {
    if (!record) continue;
    const [added, removed, ...rest] = record.split("\t");
    const path = rest.join("\t");
    // Binary files have "-" for both counts.
    counts.set(path, added === "-" ? {} : { added: Number(added), removed: Number(removed) });
  }
  const fields = raw.split("\0");
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    // ":<mode now> <mode then> <object now> <object then> <status>"
    const status = fields[i].split(" ")[4];
    const path = fields[i + 1];
    if (!status) break;
    // Diffing now → then: "D" is a file that did not exist then.
    const change: FileChange = { path, action: status === "D" ? "delete" : "restore" };
    const count = counts.get(path);
    if (count?.added !== undefined) {
      change.linesAdded = count.added;
      change.linesRemoved = count.removed;
    }
    changes.push(change);
  }
  return changes;
}
