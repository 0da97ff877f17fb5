// The run's debug log (`harness run --debug [filter]`, `--debug-file PATH`): timestamped lines
// about model requests, MCP servers, hooks and permission decisions, by category. Process-wide,
// as the run that turns it on is the process. Off, a call site costs one boolean test: callers
// check debugOn(category) before building a line.
import { secretHiding, secretValuesOf, type SecretHiding } from "./hidden-secrets.ts";

/** The categories lines are written under; a filter may also name Claude Code's own (statsig,
 * file, 1p…), which have no lines here. */
export const DEBUG_CATEGORIES = ["api", "mcp", "hooks", "permissions", "telemetry"] as const;
export type DebugCategory = (typeof DEBUG_CATEGORIES)[number];

/** Names a `--debug` filter may hold that have no lines here: Claude Code's categories. */
const OTHER_CATEGORIES = ["statsig", "1p", "file", "startup", "auth", "config", "tools", "plugins", "skills", "memory"];

const NAME = /^[a-z0-9][a-z0-9_.:-]*$/;

/** Which categories a filter lets through: "api,hooks" (only those), "!1p,!file" (all but those),
 * "" (all). Mixing the two kinds is refused, as it cannot mean anything. A string is what is wrong. */
export function parseDebugFilter(text: string): ((category: DebugCategory) => boolean) | string {
  const names = text.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  if (names.length === 0) return () => true;
  const negated = names.filter((name) => name.startsWith("!"));
  if (negated.length > 0 && negated.length < names.length) {
    return `--debug filter "${text}" mixes categories to show and to hide ("!"): give one kind, as "api,hooks" or "!mcp"`;
  }
  const bare = names.map((name) => (name.startsWith("!") ? name.slice(1) : name));
  const bad = bare.find((name) => !NAME.test(name));
  if (bad !== undefined) return `--debug filter "${text}": "${bad}" is not a category (they are ${DEBUG_CATEGORIES.join(", ")})`;
  const set = new Set(bare);
  return negated.length > 0 ? (category) => !set.has(category) : (category) => set.has(category);
}

/** Whether `text` reads as a filter of known category names (so `--debug api` takes it, where
 * `--debug hello` leaves "hello" to be the prompt). */
export function looksLikeDebugFilter(text: string): boolean {
  const names = text.split(",").map((name) => name.trim().toLowerCase().replace(/^!/, ""));
  return names.every((name) => (DEBUG_CATEGORIES as readonly string[]).includes(name) || OTHER_CATEGORIES.includes(name));
}

type Active = { write: (line: string) => void; shows: (category: DebugCategory) => boolean; secrets: SecretHiding };
let active: Active | undefined;

/** Turns the log on: each line shown goes to `write`, newline included, with the secrets of this
 * process's environment (by name: `*_API_KEY`, `*_TOKEN`…) and `secrets` hidden, as hidden-secrets.ts
 * hides them, besides those learnt later (hideInDebugLog). */
export function startDebugLog(write: (line: string) => void, shows: (category: DebugCategory) => boolean = () => true, secrets: Iterable<string | undefined> = []): void {
  active = { write, shows, secrets: secretHiding([...secretValuesOf(process.env), ...secrets]) };
}

/** Adds secrets the log hides from now on: a run's settings' env, an MCP server's env and headers.
 * Off, nothing is kept. */
export function hideInDebugLog(secrets: Iterable<string | undefined>): void {
  active?.secrets.know(secrets);
}

export function stopDebugLog(): void {
  active = undefined;
}

/** How the user of this process turns the log on, as "harness run --debug mcp" (`category` its
 * filter), for reports that show part of what it would. Set by a command that has such a flag;
 * unset where none does (a runner, serving a chat or a session), and reports then name no way. */
let howToShow: ((category: DebugCategory) => string) | undefined;

export function setDebugHow(how: ((category: DebugCategory) => string) | undefined): void {
  howToShow = how;
}

/** The command that shows lines of `category`, if this process has one. */
export function debugHow(category: DebugCategory): string | undefined {
  return howToShow?.(category);
}

/** Where this process's lines go, when that is a file a report can name: a runner's debug file,
 * which the user of a chat cannot see being written (a server's HARNESS_DEBUG). */
let where: string | undefined;

export function setDebugWhere(file: string | undefined): void {
  where = file;
}

/** The file lines of `category` are written to now, if the log is on for it and names one. */
export function debugWhere(category: DebugCategory): string | undefined {
  return debugOn(category) ? where : undefined;
}

/** Whether lines of `category` are written now: check it before building one. */
export function debugOn(category: DebugCategory): boolean {
  return active !== undefined && active.shows(category);
}

/** Writes one line, `2026-01-02T03:04:05.678Z [DEBUG] [api] message`, with its secrets hidden (an
 * MCP server's arguments and stderr and a hook's command may carry them, and a debug log is pasted
 * into bug reports). A sink that throws (a closed pipe) turns the log off
 * rather than break the run. */
export function debugLog(category: DebugCategory, message: string): void {
  if (!active?.shows(category)) return;
  try {
    active.write(`${new Date().toISOString()} [DEBUG] [${category}] ${active.secrets.hide(message)}\n`);
  } catch {
    active = undefined;
  }
}
