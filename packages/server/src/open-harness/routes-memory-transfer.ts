// Memory exported and imported over the Open Harness API. An export is a ZIP of the session's
// writable blocks (the memory files of its workspace): each file as it is, under blocks/<label>,
// with blocks.json (the blocks as the read routes show them, secrets hidden) and archive.json (the
// archive's entries as their files hold them, as the block files are: newest first). An import writes
// such a ZIP's blocks/ files back as blocks, through the checks of createBlock and updateBlock (a
// memory file the runs read at their start, a value of at most 100000 characters, no "***" written
// over a secret), and appends archive.json's entries to the archive through addToArchive's checks
// (ids kept unless taken), every file checked before any is written.
import { Readable } from "node:stream";
import type { Context } from "hono";
import { z } from "zod";
import { BadRequest, bodyOf, check } from "../sessions/api.ts";
import { refuseEchoedSecrets } from "./echoed-secrets.ts";
import { ApiError } from "./errors.ts";
import { H, handle, refusal, type OpenHarness } from "./common.ts";
import { formOf } from "./multipart.ts";
import { archiveDir, autoMemoryDir } from "./memory-archive-place.ts";
import { addEntries, isoDate, readArchive, type NewEntry } from "./memory-archive.ts";
import { blocksOf } from "./routes-memory.ts";
import { ImportedEntry, inArchiveTurn } from "./routes-memory-archive.ts";
import { fileOfLabel, placeOf, shown, Value, type Place } from "./routes-memory-write.ts";
import { stillOwned } from "./session-of.ts";
import { readWorkspaceText } from "./settings-edit.ts";
import { deleteAt, writeFileAt } from "./workspace-files.ts";
import { readZip } from "./zip-reader.ts";
import { zipOf, type ZipEntry } from "./zip-writer.ts";

const IMPORT = "memory.import";
const EXPORT = "memory.export";
const DIR = "blocks/";
/** A snapshot holds at most this many files, of at most this many bytes in all once inflated. */
export const SNAPSHOT_MAX_FILES = 200;
export const SNAPSHOT_MAX_BYTES = 8 * 1024 * 1024;

const ExportBody = z.strictObject({ include_archive: z.boolean().optional() });
const Strategy = z.enum(["overwrite", "skip", "merge"], { error: "must be overwrite, skip or merge" });
const ListedBlocks = z.array(z.looseObject({ label: z.string() }), { error: "must be a list of blocks, each with its label" });

const bytesOf = (text: string) => Buffer.from(text, "utf8");

/** check(), its refusal naming the import as its operation. */
function checked<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  try {
    return check(schema, value, where);
  } catch (error) {
    throw refusal(error, IMPORT);
  }
}

async function exported(oh: OpenHarness, c: Context, place: Place, withArchive: boolean): Promise<Response> {
  const root = place.settings.place.cwd;
  const dir = withArchive ? await autoMemoryDir(place.settings) : undefined;
  const archived = dir === undefined ? [] : await readArchive(dir);
  const blocks = (await blocksOf(oh, c, place.agentId, place.settings)).filter((block) => !block.read_only);
  const files: { label: string; text: string }[] = [];
  for (const block of blocks) {
    const text = await readWorkspaceText(root, block.label);
    if (text !== undefined) files.push({ label: block.label, text });
  }
  const now = new Date();
  const listed = blocks.filter((block) => files.some((file) => file.label === block.label)).map(({ label, value, read_only, updated_at }) => ({ label, value, read_only, updated_at }));
  const entry = (name: string, text: string): ZipEntry => ({ name, modified: now, mode: 0o100644, data: async () => Readable.from([bytesOf(text)]) });
  const entries = [entry("blocks.json", `${JSON.stringify(listed, null, 2)}\n`), entry("archive.json", `${JSON.stringify(archived, null, 2)}\n`), ...files.map((file) => entry(`${DIR}${file.label}`, file.text))];
  const filename = `memory-${place.agentId.replace(/[^A-Za-z0-9._-]/g, "_")}-${now.toISOString().replace(/[:.]/g, "-")}.zip`;
  const archive = Readable.toWeb(Readable.from(zipOf(entries))) as ReadableStream;
  return new Response(archive, { headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${filename}"` } });
}

type Incoming = { label: string; relative: string; text: string };
type Snapshot = { incoming: Incoming[]; archive: NewEntry[] };

/** The snapshot's block files, each checked as createBlock checks a new block, and its archive
 * entries, each checked as addToArchive checks one. */
function snapshotFiles(place: Place, bytes: Buffer): Snapshot {
  const files = readZip(bytes, "snapshot", SNAPSHOT_MAX_FILES, SNAPSHOT_MAX_BYTES, IMPORT);
  const incoming: Incoming[] = [];
  let archive: NewEntry[] = [];
  let listed: string[] = [];
  for (const file of files) {
    if (file.name === "archive.json") {
      archive = archiveEntries(jsonOf(file.data, "archive.json"));
    } else if (file.name === "blocks.json") {
      listed = checked(ListedBlocks, jsonOf(file.data, "blocks.json"), "snapshot: blocks.json").map((block) => block.label);
    } else if (file.name.startsWith(DIR) && file.name.length > DIR.length) {
      const label = file.name.slice(DIR.length);
      const where = `snapshot: ${file.name}`;
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(file.data);
      } catch {
        throw new ApiError(400, "invalid_request", `${where}: not UTF-8 text`, IMPORT);
      }
      checked(Value, text, where);
      let relative: string;
      try {
        relative = fileOfLabel(place.settings, label, IMPORT);
      } catch (error) {
        const refused = error instanceof BadRequest || (error instanceof ApiError && error.status === 400);
        throw refused ? new ApiError(400, "invalid_request", `${where}: ${(error as Error).message.replace(/^label: /, "")}`, IMPORT) : error;
      }
      if (incoming.some((other) => other.relative === relative)) throw new ApiError(400, "invalid_request", `${where}: the snapshot gives the block "${relative}" twice`, IMPORT);
      incoming.push({ label, relative, text });
    } else {
      throw new ApiError(400, "invalid_request", `snapshot: ${file.name} is none of a memory export's files (blocks.json, archive.json, blocks/<label>)`, IMPORT);
    }
  }
  const missing = listed.filter((label) => !incoming.some((file) => file.label === label));
  if (missing.length > 0) throw new ApiError(400, "invalid_request", `snapshot: blocks.json lists ${missing.slice(0, 5).map((label) => `"${label}"`).join(", ")} without its file under ${DIR} (the files are what is imported)`, IMPORT);
  if (incoming.length === 0 && archive.length === 0) throw new ApiError(400, "invalid_request", `snapshot: holds no block (files under ${DIR}, as memory.export makes them) and no archive entry`, IMPORT);
  return { incoming, archive };
}

/** archive.json's entries, each checked; a refusal names the entry by its place in the list. */
function archiveEntries(value: unknown): NewEntry[] {
  if (!Array.isArray(value)) throw new ApiError(400, "invalid_request", "snapshot: archive.json: must be a list of archive entries", IMPORT);
  return value.map((item, index): NewEntry => {
    const parsed = ImportedEntry.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.map((key) => `.${String(key)}`).join("");
      throw new ApiError(400, "invalid_request", `snapshot: archive.json[${index}]${where}: ${issue.message}`, IMPORT);
    }
    const { id, content, created_at, metadata } = parsed.data;
    return { content, ...(id !== undefined && { id }), ...(created_at !== undefined && { created_at: isoDate(created_at)! }), ...(metadata && { metadata }) };
  });
}

function jsonOf(data: Buffer, name: string): unknown {
  try {
    return JSON.parse(data.toString("utf8"));
  } catch {
    throw new ApiError(400, "invalid_request", `snapshot: ${name} is not JSON`, IMPORT);
  }
}

async function imported(oh: OpenHarness, c: Context, place: Place): Promise<Response> {
  const form = await formOf(c, SNAPSHOT_MAX_BYTES, 8, IMPORT, ["snapshot", "merge_strategy"]);
  let incoming: Incoming[];
  let archive: NewEntry[];
  let strategy: z.infer<typeof Strategy>;
  try {
    const snapshot = form.files.get("snapshot");
    if (snapshot?.length !== 1) throw new ApiError(400, "invalid_request", "snapshot: required, one ZIP file (as memory.export makes)", IMPORT);
    strategy = form.fields.has("merge_strategy") ? checked(Strategy, form.fields.get("merge_strategy"), "merge_strategy") : "overwrite";
    if (strategy === "merge") throw new ApiError(501, "not_implemented", "merge_strategy: merge is not supported: a block is a file, replaced whole (overwrite) or kept (skip)", IMPORT);
    ({ incoming, archive } = snapshotFiles(place, Buffer.from(await snapshot[0]!.arrayBuffer())));
  } finally {
    form.release();
  }
  const root = place.settings.place.cwd;
  const dir = archive.length > 0 ? await archiveDir(place.settings, IMPORT) : undefined;
  const existing = new Map<string, string>();
  for (const file of incoming) {
    const before = await readWorkspaceText(root, file.relative);
    if (before === undefined) continue;
    existing.set(file.relative, before);
    if (strategy === "overwrite") refuseEchoedSecrets(before, [file.text], place.settings.hide, `memory block "${file.relative}"`, IMPORT);
  }
  const conflicts = incoming.filter((file) => existing.has(file.relative)).map((file) => file.relative);
  const written = incoming.filter((file) => strategy === "overwrite" || !existing.has(file.relative));
  const skipped: { label: string; reason: string }[] = [];
  let count = 0;
  for (const file of written) {
    await writeFileAt(root, file.relative, bytesOf(file.text), true, stillOwned(oh, c, place.sessionId));
    // A new file the runs would not read at their start (a rule for some paths only, a file the
    // settings' claudeMdExcludes leaves out) is taken back, as createBlock takes it back.
    if (!existing.has(file.relative) && !(await shown(oh, c, place.agentId, file.relative))) {
      await deleteAt(root, file.relative, false).catch(() => {});
      skipped.push({ label: file.relative, reason: "the runs would not read it at their start (a rule for some paths only, or a file claudeMdExcludes leaves out): not kept" });
      continue;
    }
    count++;
  }
  const appended = dir === undefined ? [] : await inArchiveTurn(dir, async () => addEntries(dir, archive, new Set((await readArchive(dir)).map((entry) => entry.id)), stillOwned(oh, c, place.sessionId)));
  return c.json({ blocks_imported: count, archive_entries_imported: appended.length, conflicts, ...(skipped.length > 0 && { skipped }) });
}

export function mountMemoryTransferRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    `${H}/agents/:agentId/memory/export`,
    handle(async (c) => {
      const place = await placeOf(oh, c);
      const body = check(ExportBody, await bodyOf(c));
      return exported(oh, c, place, body.include_archive !== false);
    }),
  );
  app.post(
    `${H}/agents/:agentId/memory/import`,
    handle(async (c) => imported(oh, c, await placeOf(oh, c))),
  );
}
