// Files a restore would remove although checkpoints leave them alone (ignored ones, node_modules):
// those where the checkpoint has a file and the workspace now has a directory (git removes the whole
// directory to write the file), or now has an untracked file where the checkpoint has a directory.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { FileChange } from "@harness/protocol";

/** Workspace-relative paths of the files that restoring `changes` would remove without listing them. */
export async function untrackedInTheWay(workspace: string, changes: readonly FileChange[]): Promise<string[]> {
  const listed = new Set(changes.filter((change) => change.action === "delete").map((change) => change.path));
  const found: string[] = [];
  const seenDirs = new Set<string>();
  for (const change of changes) {
    if (change.action !== "restore") continue;
    const parts = change.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (seenDirs.has(dir)) continue;
      seenDirs.add(dir);
      const stat = await lstat(join(workspace, dir)).catch(() => undefined);
      if (stat && !stat.isDirectory() && !listed.has(dir)) found.push(dir);
    }
    const stat = await lstat(join(workspace, change.path)).catch(() => undefined);
    if (!stat?.isDirectory()) continue;
    const entries = await readdir(join(workspace, change.path), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory()) continue;
      const path = `${change.path}/${join(entry.parentPath, entry.name).slice(join(workspace, change.path).length + 1)}`;
      if (!listed.has(path)) found.push(path);
    }
  }
  return found;
}
