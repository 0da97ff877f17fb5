// The files `harness mcp` reads and writes: where each scope's servers are kept, read fresh (the
// loader's cache is for runs), and written back whole, atomically, with every other key kept.
import { mkdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { writeFileAtomically } from "@harness/agent/atomic-write";
import { readJsonObjectFile } from "@harness/agent/json-object-file";
import { isJsonObject } from "@harness/agent/json-text";
import { findProjectRoot, ownProjectRoot } from "@harness/agent/project-root";
import type { McpScope } from "./args.ts";
import { userConfigDir, userConfigFile } from "@harness/agent/user-config-dir";

/** A failure the user can act on: printed as one line, exit status 1. */
export class McpFileError extends Error {}

/** `userDir` and `userFile`: the user's configuration directory and global configuration file
 * (user-config-dir.ts). */
export type McpPlace = { home: string; projectRoot: string; userDir: string; userFile: string };

/** The home directory and the project a run in `cwd` would use. */
export async function mcpPlace(cwd: string, env: NodeJS.ProcessEnv): Promise<McpPlace> {
  const home = env.HOME || homedir();
  return { home, projectRoot: ownProjectRoot(cwd, (await findProjectRoot(cwd)).root), userDir: userConfigDir(home, env), userFile: userConfigFile(home, env) };
}

export function scopeFile(scope: McpScope, place: McpPlace): string {
  return scope === "project" ? join(place.projectRoot, ".mcp.json") : place.userFile;
}

/** How a scope is named to the user, with the file it is kept in. */
export function describeScope(scope: McpScope, place: McpPlace): string {
  const file = scopeFile(scope, place);
  if (scope === "local") return `local config (yours, in this project only: the entry of ${place.projectRoot} in ${file})`;
  if (scope === "project") return `project config (shared with the project: ${file})`;
  return `user config (yours, in every project: ${file})`;
}

export type ConfigFile = { file: string; value: Record<string, unknown> };

/** The JSON object in `file`, `{}` when there is none. Anything else is refused, saying the file is
 * left as it is: a file that cannot be understood is never written over. */
export function readConfig(file: string, options: { exactNumbers?: boolean } = {}): ConfigFile {
  let read: ReturnType<typeof readJsonObjectFile>;
  try {
    read = readJsonObjectFile(file);
  } catch (error) {
    throw new McpFileError((error as Error).message);
  }
  if (read === undefined) return { file, value: {} };
  return { file, value: options.exactNumbers ? withExactNumbers(read.text, read.value) : read.value };
}

type RawJson = (text: string) => unknown;
const rawJSON = (JSON as unknown as { rawJSON?: RawJson }).rawJSON;

/** `value` parsed again from `text`, each number that a double cannot hold as written (an id beyond
 * 2^53, 1e400) kept as its own text, so that writing the file back does not change it. */
function withExactNumbers(text: string, value: Record<string, unknown>): Record<string, unknown> {
  const body = text.replace(/^\uFEFF/, "");
  // A blank file holds no numbers (and is no JSON to parse again).
  if (!rawJSON || body.trim() === "") return value;
  const keep = rawJSON;
  return JSON.parse(body, (_key: string, parsed: unknown, context?: { source?: string }) =>
    typeof parsed === "number" && context?.source !== undefined && String(parsed) !== context.source ? keep(context.source) : parsed,
  ) as Record<string, unknown>;
}

/** The `mcpServers` object of `scope` in `config` (undefined when there is none yet). */
export function serversIn(config: ConfigFile, scope: McpScope, place: McpPlace): Record<string, unknown> | undefined {
  const holder = scope === "local" ? projectEntry(config, place) : config.value;
  const servers = holder?.mcpServers;
  if (servers === undefined) return undefined;
  if (!isJsonObject(servers)) throw new McpFileError(`${config.file}: "mcpServers"${scope === "local" ? ` of ${place.projectRoot}` : ""} is not an object; it was left as it is`);
  return servers;
}

function projectEntry(config: ConfigFile, place: McpPlace): Record<string, unknown> | undefined {
  const projects = config.value.projects;
  if (projects === undefined) return undefined;
  if (!isJsonObject(projects)) throw new McpFileError(`${config.file}: "projects" is not an object; it was left as it is`);
  const entry = projects[place.projectRoot];
  if (entry !== undefined && !isJsonObject(entry)) throw new McpFileError(`${config.file}: the entry of ${place.projectRoot} is not an object; it was left as it is`);
  return entry;
}

/** `config` with `servers` as the `mcpServers` of `scope`; every other key as it was, in order. */
export function withServers(config: ConfigFile, scope: McpScope, place: McpPlace, servers: Record<string, unknown>): Record<string, unknown> {
  if (scope !== "local") return { ...config.value, mcpServers: servers };
  const projects = (config.value.projects ?? {}) as Record<string, unknown>;
  const entry = projectEntry(config, place) ?? {};
  return { ...config.value, projects: { ...projects, [place.projectRoot]: { ...entry, mcpServers: servers } } };
}

/** How long a lock may go untouched before it is taken to be left by a process that is gone:
 * proper-lockfile's default, as Claude Code takes its lock, which refreshes it while held. */
const LOCK_STALE_MS = 10_000;
/** How long to wait for a lock that another process holds. */
const LOCK_WAIT_MS = 15_000;

/** Reads `file`, makes its new value with `change` (which may throw to leave the file as it is) and
 * writes it back, under the file's lock (`withFileLock`): a change made meanwhile by Claude Code or
 * another command is not lost. A missing directory is made first, as Claude Code makes a
 * CLAUDE_CONFIG_DIR that does not exist yet. */
export async function updateConfig(file: string, change: (config: ConfigFile) => Record<string, unknown>): Promise<void> {
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    throw new McpFileError(`cannot make the directory of ${file}: ${(error as Error).message}`);
  }
  await withFileLock(file, () => {
    const config = readConfig(file, { exactNumbers: true });
    writeConfig(config, change(config));
  });
}

/** Runs `body` holding the lock Claude Code takes to save ~/.claude.json (the directory
 * `<file>.lock`, as proper-lockfile makes it), waiting a while for one another process holds.
 * `body` is synchronous: the lock is held while it runs, and kept short for that. */
export async function withFileLock<T>(file: string, body: () => T): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new McpFileError(`cannot lock ${file} (${lock}): ${(error as Error).message}`);
    }
    let touched: number | undefined;
    try {
      touched = statSync(lock).mtimeMs;
    } catch {
      continue; // Released between the two calls.
    }
    if (Date.now() - touched > LOCK_STALE_MS) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new McpFileError(`${file} is locked by another process (${lock}); if none is running, remove ${lock}`);
    await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 50));
  }
  try {
    return body();
  } finally {
    try {
      rmdirSync(lock);
    } catch {
      // Taken over as stale: not ours to remove any more.
    }
  }
}

/** Writes `value` to the config's file, atomically, a symbolic link written through and the owner
 * and mode kept (atomic-write.ts); a new ~/.claude.json, which may hold tokens, is its owner's
 * only. Indented by two spaces, as Claude Code writes both files. */
export function writeConfig(config: ConfigFile, value: Record<string, unknown>): void {
  try {
    writeFileAtomically(config.file, JSON.stringify(value, null, 2), { newMode: basename(config.file) === ".claude.json" ? 0o600 : undefined });
  } catch (error) {
    throw new McpFileError(`cannot write ${config.file}: ${(error as Error).message}`);
  }
}
