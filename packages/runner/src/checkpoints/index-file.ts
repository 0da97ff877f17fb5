// The checkpoint index: which snapshot (git tree) and which backend belong to each user message.
// A journal in the state directory, one JSON line per change, appended: a run adds a line or two
// whatever the length of the conversation. Indexes of earlier versions (checkpoints.json, the whole
// index rewritten on every change) are read as the journal's starting point.
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const EntrySchema = z.object({
  /** The workspace's tree before the run; absent when no snapshot could be taken. */
  tree: z.string().optional(),
  /** The run has changed nothing yet: the next snapshot taken is this message's too. */
  pending: z.literal(true).optional(),
  /** The backend that ran the query (its own rewind, if it has one, is used first). */
  backend: z.string(),
  createdAt: z.string(),
});
const IndexSchema = z.object({ version: z.literal(1), messages: z.record(z.string(), EntrySchema) });

/** A message's entry as it now stands, or: every pending entry takes this tree (null: none). */
const LineSchema = z.union([z.strictObject({ id: z.string(), entry: EntrySchema }), z.strictObject({ fill: z.string().nullable() })]);

export type CheckpointEntry = z.infer<typeof EntrySchema>;
export type CheckpointIndex = z.infer<typeof IndexSchema>;
export type JournalLine = z.infer<typeof LineSchema>;

export const JOURNAL_FILE = "checkpoints.jsonl";
/** The whole-file index of earlier versions: read, never written. */
export const LEGACY_INDEX_FILE = "checkpoints.json";

/** The index in `stateDir`; empty when there is none yet. What cannot be read or parsed is reported
 * and skipped (those checkpoints are lost; later ones work again). */
export async function readIndex(stateDir: string): Promise<{ index: CheckpointIndex; problems: string[] }> {
  const problems: string[] = [];
  const index = emptyIndex();
  const legacy = await readText(join(stateDir, LEGACY_INDEX_FILE), problems);
  if (legacy !== undefined) {
    const parsed = parseJson(legacy, IndexSchema);
    if (parsed.ok) index.messages = messageMap(Object.entries(parsed.value.messages));
    else problems.push(`${LEGACY_INDEX_FILE} is not a checkpoint index: ${parsed.error}`);
  }
  const journal = await readText(join(stateDir, JOURNAL_FILE), problems);
  const lines = journal?.split("\n") ?? [];
  lines.forEach((text, n) => {
    if (text === "") return;
    const parsed = parseJson(text, LineSchema);
    // A last line cut short by a crash is expected; say so only of the others.
    if (!parsed.ok) {
      if (n < lines.length - 1) problems.push(`${JOURNAL_FILE} line ${n + 1} is not a checkpoint record: ${parsed.error}`);
      return;
    }
    applyLine(index, parsed.value);
  });
  return { index, problems };
}

/** Applies one change to `index` (as appendLine records it). */
export function applyLine(index: CheckpointIndex, line: JournalLine): void {
  if ("id" in line) {
    index.messages[line.id] = line.entry;
    return;
  }
  for (const [id, entry] of Object.entries(index.messages)) {
    if (!entry.pending) continue;
    index.messages[id] = { ...(line.fill !== null && { tree: line.fill }), backend: entry.backend, createdAt: entry.createdAt };
  }
}

/** Appends one change to the journal. Synchronous: a line of a hundred bytes written to a local file
 * costs less than a round trip through the thread pool would. */
export function appendLine(stateDir: string, line: JournalLine): void {
  const file = join(stateDir, JOURNAL_FILE);
  const text = `${JSON.stringify(line)}\n`;
  try {
    appendFileSync(file, text);
  } catch (error) {
    // The directory is made on the first write (or again, if it was removed meanwhile).
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(stateDir, { recursive: true });
    appendFileSync(file, text);
  }
}

/** Replaces the journal with one line per entry of `index` (whole or not at all). */
export function rewriteJournal(stateDir: string, index: CheckpointIndex): void {
  const file = join(stateDir, JOURNAL_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, Object.entries(index.messages).map(([id, entry]) => `${JSON.stringify({ id, entry })}\n`).join(""));
  renameSync(temp, file);
  // The journal now holds what the whole-file index of an earlier version said.
  rmSync(join(stateDir, LEGACY_INDEX_FILE), { force: true });
}

export function emptyIndex(): CheckpointIndex {
  return { version: 1, messages: messageMap() };
}

/** The entries by message id, in an object without a prototype: ids are the client's, and one
 * named "constructor" or "__proto__" must be an entry like any other. */
export function messageMap(entries: Iterable<readonly [string, CheckpointEntry]> = []): CheckpointIndex["messages"] {
  const map: CheckpointIndex["messages"] = Object.create(null);
  for (const [id, entry] of entries) map[id] = entry;
  return map;
}

async function readText(file: string, problems: string[]): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") problems.push(`cannot read ${file}: ${(error as Error).message}`);
    return undefined;
  }
}

function parseJson<T>(text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: parsed.error.issues[0]?.message ?? "invalid" };
}
