// Claude Code's auto memory: notes the model keeps for itself about a project, in a directory of
// their own outside it, read back at the start of every conversation (auto-memory-load.ts). By
// default the directory is <home>/.claude/projects/<the project's path as one name>/memory, where
// Claude Code keeps it, so that both read and write the same notes; the project is the repository's
// main checkout, so every worktree of it shares one memory.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { switchSet } from "@harness/llm/env-switch";
import type { SettingsScope } from "../settings/types.ts";

/** Longer names are cut to this many characters and given a hash of the whole path. */
const MAX_NAME_CHARS = 200;

/** A project's path as the name of its directory under ~/.claude/projects, as Claude Code writes
 * it (its transcripts' directory has the same name): every character but an ASCII letter or digit
 * becomes "-"; past 200 characters the name is cut and a hash of the path added (the djb2 hash,
 * in base 36, that Claude Code uses under Node). */
export function projectDirName(projectPath: string): string {
  const name = projectPath.replace(/[^a-zA-Z0-9]/g, "-");
  if (name.length <= MAX_NAME_CHARS) return name;
  let hash = 0;
  for (let i = 0; i < projectPath.length; i++) hash = ((hash << 5) - hash + projectPath.charCodeAt(i)) | 0;
  return `${name.slice(0, MAX_NAME_CHARS)}-${Math.abs(hash).toString(36)}`;
}

/** The main checkout of the repository whose root is `root`: for a linked worktree (whose `.git`
 * is a file naming a directory with a `commondir`), the directory that holds the shared `.git`;
 * otherwise `root` itself. Plain file reads: no git process is started. */
export function canonicalGitRoot(root: string): string {
  try {
    const dotGit = path.join(root, ".git");
    if (!statSync(dotGit).isFile()) return root;
    const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    if (!gitdir) return root;
    const own = path.resolve(root, gitdir);
    const common = path.resolve(own, readFileSync(path.join(own, "commondir"), "utf8").trim());
    return path.basename(common) === ".git" ? path.dirname(common) : root;
  } catch {
    return root;
  }
}

/** `configDir`: the user's configuration directory (config/user-config-dir.ts), ~/.claude unless
 * CLAUDE_CONFIG_DIR moves it. */
export function defaultAutoMemoryDir(configDir: string, base: string): string {
  return path.join(configDir, "projects", projectDirName(base), "memory");
}

type Env = Readonly<Record<string, string | undefined>>;

/** Whether auto memory is on, decided as Claude Code does: CLAUDE_CODE_DISABLE_AUTO_MEMORY first
 * (1/true/yes/on: off; 0/false/no/off: on, whatever the settings say), then the settings'
 * autoMemoryEnabled (any scope: a project may opt out), else on. */
export function autoMemoryEnabled(env: Env, settings: { autoMemoryEnabled?: unknown }): boolean {
  const disabled = switchSet(env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY");
  if (disabled !== undefined) return !disabled;
  return settings.autoMemoryEnabled !== false;
}

/** The scopes whose autoMemoryDirectory counts, strongest first. The model writes into the directory
 * without asking, so a repository's settings (project, and local, which may come with it too) must
 * not choose it: one could point it at ~/.ssh. Claude Code likewise refuses the project's. */
const TRUSTED: readonly SettingsScope[] = ["managed", "flag", "user"];

export type AutoMemoryPlace = {
  dir: string;
  /** Settings files whose autoMemoryDirectory was not used because they come with the repository. */
  ignored: string[];
};

/** Where the auto memory of the project based at `base` (canonicalGitRoot's) is: the strongest
 * trusted settings' autoMemoryDirectory (the schema has checked it is absolute or `~/…`), else
 * defaultAutoMemoryDir. */
export function autoMemoryDirectory(where: { home: string; configDir: string; base: string; sources: readonly { scope: SettingsScope; path: string; settings: { autoMemoryDirectory?: unknown } }[] }): AutoMemoryPlace {
  const ignored = where.sources.filter((s) => !TRUSTED.includes(s.scope) && typeof s.settings.autoMemoryDirectory === "string").map((s) => s.path);
  for (const scope of TRUSTED) {
    const chosen = where.sources.filter((s) => s.scope === scope && typeof s.settings.autoMemoryDirectory === "string").at(-1);
    if (chosen) return { dir: expandHome(chosen.settings.autoMemoryDirectory as string, where.home), ignored };
  }
  return { dir: defaultAutoMemoryDir(where.configDir, where.base), ignored };
}

function expandHome(dir: string, home: string): string {
  const expanded = dir.startsWith("~/") ? path.join(home, dir.slice(2)) : dir;
  return path.normalize(expanded).replace(/\/+$/, "");
}

/** What is wrong with an autoMemoryDirectory value, for the settings schema; undefined when usable.
 * It must name one directory for certain, and not a whole tree the model could then write anywhere in. */
export function autoMemoryDirectoryProblem(dir: string): string | undefined {
  if (dir.includes("\0")) return "must not hold a NUL character";
  if (!dir.startsWith("/") && !dir.startsWith("~/")) return `must be an absolute path or start with ~/, got ${JSON.stringify(dir)}`;
  const rest = dir.startsWith("~/") ? path.normalize(dir.slice(2) || ".") : path.normalize(dir);
  if (dir.startsWith("~/") && (rest === "." || rest === ".." || rest.startsWith("../"))) return `must name a directory inside the home directory, not ${JSON.stringify(dir)}`;
  if (!dir.startsWith("~/") && rest === "/") return "must not be the filesystem root";
  return undefined;
}
