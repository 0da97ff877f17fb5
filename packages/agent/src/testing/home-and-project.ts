// A user's home and a project side by side in one fresh directory, for discovery tests.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** Creates `<base>/home` and `<base>/project` and writes `files` (paths relative to `base`, e.g.
 * "project/.claude/commands/x.md"), making directories as needed. */
export async function writeHomeAndProject(base: string, files: Record<string, string>): Promise<{ base: string; home: string; projectRoot: string }> {
  const home = path.join(base, "home");
  const projectRoot = path.join(base, "project");
  await mkdir(home, { recursive: true });
  await mkdir(projectRoot, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(base, name)), { recursive: true });
    await writeFile(path.join(base, name), text);
  }
  return { base, home, projectRoot };
}
