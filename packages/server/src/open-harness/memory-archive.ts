// The memory archive as files: each entry is archive/<id>.md in a session's auto memory directory
// (@harness/agent's auto memory: the runs never load it, and their system prompt tells the model to
// search it there), its text a front matter then the entry's content exactly:
//
//   ---
//   id: arch_…
//   created_at: 2026-01-02T03:04:05.000Z
//   metadata: {"topic":"infra"}
//   ---
//   content
//
// A file of archive/ is an entry when it is named <id>.md (an id as ENTRY_ID has it) and its front
// matter gives a created_at that is a date; its id is its name, whatever its front matter says, so
// that no two entries share one. metadata is one line of JSON (valid YAML too); a file written by
// hand or by the model with anything else there is an entry without metadata. Files are read and
// written by the files routes' helpers, confined to the directory (no link out of it is followed).
import { randomBytes } from "node:crypto";
import { AUTO_MEMORY_ARCHIVE } from "@harness/agent/run-auto-memory";
import { ApiError } from "./errors.ts";
import { readWorkspaceText } from "./settings-edit.ts";
import { listFiles, writeFileAt, type SessionCheck } from "./workspace-files.ts";

export type ArchiveEntry = { id: string; content: string; created_at: string; metadata?: Record<string, unknown> };
/** An entry to add: its id and created_at kept when given (an import), else made. */
export type NewEntry = { id?: string; content: string; created_at?: string; metadata?: Record<string, unknown> };

export const ENTRY_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
export const CONTENT_MAX_CHARS = 100_000;
export const METADATA_MAX_BYTES = 16 * 1024;
const FRONT_MATTER = /^---\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;
const NAME = /^(.+)\.md$/;

/** The file text of `entry`. */
export function entryText(entry: ArchiveEntry): string {
  const metadata = entry.metadata === undefined ? "" : `metadata: ${JSON.stringify(entry.metadata)}\n`;
  return `---\nid: ${entry.id}\ncreated_at: ${entry.created_at}\n${metadata}---\n${entry.content}`;
}

/** The entry the file `name` of archive/ holding `text` is; undefined when it is none. */
export function parseEntry(name: string, text: string): ArchiveEntry | undefined {
  const id = NAME.exec(name)?.[1];
  const front = FRONT_MATTER.exec(text);
  if (id === undefined || !ENTRY_ID.test(id) || !front) return undefined;
  const fields = new Map<string, string>();
  for (const line of (front[1] ?? "").split(/\r?\n/)) {
    const field = /^([A-Za-z_]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (field && !fields.has(field[1]!)) fields.set(field[1]!, field[2]!);
  }
  const created = isoDate(unquoted(fields.get("created_at") ?? ""));
  if (created === undefined) return undefined;
  const metadata = jsonObject(fields.get("metadata"));
  return { id, content: text.slice(front[0].length), created_at: created, ...(metadata && { metadata }) };
}

/** `text` as an ISO date, when it is one. */
export function isoDate(text: string): string | undefined {
  if (!/^\d{4}-\d\d-\d\d/.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

const unquoted = (text: string) => text.replace(/^(["'])(.*)\1$/, "$2");

function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The entries of the auto memory directory `dir`, newest first (by created_at, then id). A file
 * that cannot be read (too large, not a regular file, gone meanwhile) is passed by; so is an
 * archive/ that is missing, or a link out of the directory (no archive of its: the runs too would
 * have to ask to write there). */
export async function readArchive(dir: string): Promise<ArchiveEntry[]> {
  const listed = await listFiles(dir, AUTO_MEMORY_ARCHIVE, false).catch((error: unknown) => {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return { files: [] };
    throw error;
  });
  const entries: ArchiveEntry[] = [];
  for (const file of listed.files) {
    if (file.type !== "file" || !NAME.test(file.name)) continue;
    const text = await readWorkspaceText(dir, file.path).catch(() => undefined);
    const entry = text === undefined ? undefined : parseEntry(file.name, text);
    if (entry) entries.push(entry);
  }
  return entries.sort(newestFirst);
}

function newestFirst(a: ArchiveEntry, b: ArchiveEntry): number {
  const by = Date.parse(b.created_at) - Date.parse(a.created_at);
  return by !== 0 ? by : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

let lastIdTime = 0;

/** A new id, later than every other this process made: entries added in one millisecond are still
 * listed in the order they were added. */
export function newEntryId(): string {
  lastIdTime = Math.max(Date.now(), lastIdTime + 1);
  return `arch_${lastIdTime.toString(36).padStart(9, "0")}${randomBytes(3).toString("hex")}`;
}

/** Writes `entries` into the archive of `dir` (which the caller keeps from other writes meanwhile:
 * `taken` are the ids there), each a new file: a given id is kept unless it is taken or no id,
 * else a new one is made, as it is when a file of that name appears meanwhile. The entries written. */
export async function addEntries(dir: string, entries: readonly NewEntry[], taken: ReadonlySet<string>, stillThere: SessionCheck): Promise<ArchiveEntry[]> {
  const used = new Set(taken);
  const written: ArchiveEntry[] = [];
  for (const given of entries) {
    let id = given.id !== undefined && ENTRY_ID.test(given.id) && !used.has(given.id) ? given.id : newEntryId();
    const created_at = given.created_at ?? new Date().toISOString();
    for (;;) {
      const entry: ArchiveEntry = { id, content: given.content, created_at, ...(given.metadata && { metadata: given.metadata }) };
      const done = await writeFileAt(dir, `${AUTO_MEMORY_ARCHIVE}/${id}.md`, new TextEncoder().encode(entryText(entry)), false, stillThere).then(
        () => true,
        (error: unknown) => {
          if (error instanceof ApiError && error.code === "file_exists") return false;
          // The files routes' words are of a workspace: this is the auto memory directory.
          if (error instanceof ApiError && error.status === 400) throw new ApiError(409, "conflict", `${error.message.replace(/^path: /, "").replaceAll("the session's workspace", "the auto memory directory")}: the archive was left as it is`);
          throw error;
        },
      );
      used.add(id);
      if (done) {
        written.push(entry);
        break;
      }
      id = newEntryId();
    }
  }
  return written;
}

/** `entry` as this API shows it: its secrets hidden as the memory blocks' are. */
export function shownEntry(entry: ArchiveEntry, hide: (text: string) => string): ArchiveEntry {
  return { ...entry, content: hide(entry.content), ...(entry.metadata && { metadata: hiddenIn(entry.metadata, hide) as Record<string, unknown> }) };
}

function hiddenIn(value: unknown, hide: (text: string) => string): unknown {
  if (typeof value === "string") return hide(value);
  if (Array.isArray(value)) return value.map((item) => hiddenIn(item, hide));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, hiddenIn(item, hide)]));
  return value;
}
