// Reads of the user's and the project's configuration (settings, memory files, skills, commands,
// agents, MCP configuration), which every run makes again. A runner serving many sessions starts
// runs by the dozen, and each read through fs/promises costs it a fraction of a millisecond of its
// event loop (an open, a stat, a read and a close, each a round trip through the thread pool): so a
// file or directory read before is checked with one synchronous stat, and read again only when its
// size, times or inode changed. A missing file is known from the stat alone. The functions reject
// with the errors of their node:fs/promises namesakes, except that a path below a file is reported
// missing (ENOENT, not ENOTDIR), as the stat that finds it says.
import { readdirSync, statSync, type Dirent, type Stats } from "node:fs";
import { readdir as readdirAsync, readFile as readFileAsync, stat as statAsync } from "node:fs/promises";
import { specialFileKind } from "../files/file-kind.ts";
import { parseJsonText, type JsonFile } from "./json-text.ts";

/** Larger files are read every time. */
const MAX_CACHED_BYTES = 256 * 1024;
/** Larger files are not read at all: no configuration is this large, and reading one whole could
 * take the process's memory. */
export const MAX_CONFIG_FILE_BYTES = 64 * 1024 * 1024;
/** Entries kept, oldest dropped first. */
const MAX_ENTRIES = 4096;
/** A file changed this recently may change again within the resolution of its timestamps without
 * them showing it; it is not cached until it has been still for this long. */
const SETTLE_MS = 2000;

type Signature = { size: number; mtimeMs: number; ctimeMs: number; ino: number };
const files = new Map<string, { signature: Signature; content: Buffer }>();
let reads = 0;
const dirs = new Map<string, { signature: Signature; entries: Dirent[] }>();

function signatureOf(stats: Stats): Signature {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

function same(a: Signature, b: Signature): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

function settled(s: Signature): boolean {
  const before = Date.now() - SETTLE_MS;
  return s.mtimeMs < before && s.ctimeMs < before;
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as string);
}

/** The stats of `file`, null when it does not exist, undefined when stat failed otherwise (the
 * asynchronous call then reports the failure as it would have). */
function statOf(file: string): Stats | null | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return undefined;
  }
}

function missing(syscall: string, file: string): NodeJS.ErrnoException {
  // Most candidate files do not exist: no stack trace (its capture is most of an error's cost).
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const error = new Error(`ENOENT: no such file or directory, ${syscall} '${file}'`);
  Error.stackTraceLimit = limit;
  return Object.assign(error, { code: "ENOENT", errno: -2, syscall, path: file });
}

/** Whether an error of these functions means there is no such file (none at the path, or a file
 * where a directory of the path should be). */
export function isMissingError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** An empty directory where a configuration file belongs is what the Bash sandbox keeps there
 * while its commands run, so that none of them makes the file: no file, for the reader. */
function isEmptyDirectory(file: string, error: unknown): boolean {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "EISDIR") return false;
  try {
    return readdirSync(file).length === 0;
  } catch {
    return false;
  }
}

/** Whether stat(2) of `file` succeeds. */
export function configPathExists(file: string): boolean {
  return statOf(file) != null;
}

/** The bytes of `file`; callers must not modify them (they may be shared). A named pipe, a device
 * or a file over MAX_CONFIG_FILE_BYTES is refused with an error that says so. */
export function readConfigFile(file: string): Promise<Buffer> {
  return readStated(file, statOf(file));
}

/** readConfigFile, given what statOf(file) just gave. */
async function readStated(file: string, stats: Stats | null | undefined): Promise<Buffer> {
  if (stats === null) throw missing("open", file);
  if (stats) {
    const kind = specialFileKind(stats);
    // Without the path: callers put the file's name before the message.
    if (kind) throw new Error(`it is ${kind}, not a regular file, so it is not read`);
    if (stats.size > MAX_CONFIG_FILE_BYTES) throw new Error(`it is ${Math.round(stats.size / 1024 / 1024)} MB; files over ${MAX_CONFIG_FILE_BYTES / 1024 / 1024} MB are not read`);
  }
  if (stats === undefined || !stats.isFile() || stats.size > MAX_CACHED_BYTES) return readFileAsync(file);
  const signature = signatureOf(stats);
  const known = files.get(file);
  if (known && same(known.signature, signature)) return known.content;
  reads++;
  const content = await readFileAsync(file);
  // The signature is from before the read: a change during it shows as a difference next time.
  if (settled(signature) && content.length === signature.size) remember(files, file, { signature, content });
  else files.delete(file);
  return content;
}

export async function readConfigText(file: string): Promise<string> {
  return (await readConfigFile(file)).toString("utf8");
}

const parsed = new Map<string, { signature: Signature; read: JsonFile }>();

/** The JSON in `file` (see parseJsonText): missing when there is no such file, an error that says
 * what is wrong when it cannot be read or parsed. Parsed again only when the file changed, whatever
 * its size: ~/.claude.json, read by both the memory loader and the MCP configuration on every run,
 * runs to megabytes. Callers must not modify the value (it is shared). */
export async function readConfigJson(file: string): Promise<JsonFile> {
  const stats = statOf(file);
  const signature = stats && stats.isFile() ? signatureOf(stats) : undefined;
  const known = parsed.get(file);
  if (signature && known && same(known.signature, signature)) return known.read;
  if (stats === null) return { kind: "missing" };
  let text: string;
  try {
    text = (await readStated(file, stats)).toString("utf8");
  } catch (error) {
    if (isMissingError(error) || isEmptyDirectory(file, error)) return { kind: "missing" };
    return { kind: "error", message: `cannot read the file: ${(error as Error).message}` };
  }
  const read = parseJsonText(text);
  if (signature && settled(signature)) remember(parsed, file, { signature, read });
  else parsed.delete(file);
  return read;
}

/** The entries of `dir` (as readdir with file types), in the order the system gave them. */
export async function readConfigDir(dir: string): Promise<Dirent[]> {
  const stats = statOf(dir);
  if (stats === null) throw missing("scandir", dir);
  if (stats === undefined || !stats.isDirectory()) return readdirAsync(dir, { withFileTypes: true });
  const signature = signatureOf(stats);
  const known = dirs.get(dir);
  if (known && same(known.signature, signature)) return known.entries.slice();
  reads++;
  const entries = await readdirAsync(dir, { withFileTypes: true });
  if (settled(signature)) remember(dirs, dir, { signature, entries: entries.slice() });
  else dirs.delete(dir);
  return entries;
}

/** stat(2) for a configuration path: rejects like fs/promises stat when it does not exist. */
export async function statConfig(file: string): Promise<Stats> {
  const stats = statOf(file);
  if (stats === null) throw missing("stat", file);
  return stats ?? statAsync(file);
}

/** Files and directories actually read so far by this process (cache misses). */
export function configReadsSoFar(): number {
  return reads;
}
