// The directories added with the run (Claude Code's --add-dir: RunAgentOptions.additionalDirectories)
// lend it more than their files, as Claude Code's do: the skills, commands and agents of their
// `.claude/`, read as the project's (the project's own win a name clash), and, only when
// CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD is on, their memory files (CLAUDE.md, .claude/
// CLAUDE.md, .claude/rules, CLAUDE.local.md). Their settings are not read. The settings'
// permissions.additionalDirectories lend files only.
import path from "node:path";
import { envSwitch } from "../../env/number.ts";

/** The variable that has the added directories' memory files read. */
const ADDED_DIRS_MEMORY_VARIABLE = "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD";

/** The added directories, resolved against `cwd`, without those read already (`taken`: the
 * project's root, the home directory) and without repeats. */
export function addedConfigDirs(given: readonly string[] | undefined, cwd: string, taken: readonly string[]): string[] {
  const skip = new Set(taken.map((dir) => path.resolve(dir)));
  const dirs: string[] = [];
  for (const dir of given ?? []) {
    const resolved = path.resolve(cwd, dir);
    if (!skip.has(resolved) && !dirs.includes(resolved)) dirs.push(resolved);
  }
  return dirs;
}

/** Whether `env` turns on the added directories' memory files (1, true, yes or on). */
export function readsAddedDirsMemory(env: Readonly<Record<string, string | undefined>>): boolean {
  return envSwitch(env, ADDED_DIRS_MEMORY_VARIABLE);
}
