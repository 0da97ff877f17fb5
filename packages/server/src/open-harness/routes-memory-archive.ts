// The memory archive over the Open Harness API (memory.getArchive, memory.addToArchive): the entries
// of the archive/ folder of the session's auto memory directory (memory-archive.ts), where Claude
// Code keeps the model's own notes (by default ~/.claude/projects/<project>/memory, in the runs'
// home; autoMemoryDirectory in the user's settings moves it). The runs never load it at their start;
// their system prompt names it for the model to search. Like the other memory routes, it is the
// session's (session_id in the query), every agent's alike. It is written only there, confined to
// that directory (a link out of it is refused), even when it is in the user's home: that directory is
// the one place there the runs themselves write without asking. While auto memory is off for the
// session there is no archive: these routes answer 409 auto_memory_disabled naming the setting.
import type { Context } from "hono";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, queryOf, refusal, type OpenHarness } from "./common.ts";
import { archiveDir } from "./memory-archive-place.ts";
import { addEntries, CONTENT_MAX_CHARS, isoDate, METADATA_MAX_BYTES, readArchive, shownEntry } from "./memory-archive.ts";
import { inTurn } from "./one-at-a-time.ts";
import { placeOf } from "./routes-memory-write.ts";
import { SessionQuery, stillOwned } from "./session-of.ts";
import { page, PaginationSchema } from "./shapes.ts";

const GET = "memory.getArchive";
const ADD = "memory.addToArchive";
/** A body of 100,000 characters of any script, as JSON, with its metadata. */
const ADD_MAX_BYTES = 1024 * 1024;

export const ArchiveContent = z.string().min(1, "must not be empty").max(CONTENT_MAX_CHARS, `must be at most ${CONTENT_MAX_CHARS} characters`);
export const ArchiveMetadata = z
  .record(z.string(), z.unknown(), { error: "must be a JSON object" })
  .refine((metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= METADATA_MAX_BYTES, `must be at most ${METADATA_MAX_BYTES} bytes as JSON`);
const AddBody = z.strictObject({ content: ArchiveContent, metadata: ArchiveMetadata.optional() });
const ListQuery = PaginationSchema.extend({ session_id: SessionQuery.shape.session_id });
/** An entry of archive.json in an import: another harness's may have fields of its own. */
export const ImportedEntry = z.looseObject({
  id: z.string().optional(),
  content: ArchiveContent,
  created_at: z.string().refine((text) => isoDate(text) !== undefined, "must be a date (ISO 8601)").optional(),
  metadata: ArchiveMetadata.nullable().optional(),
});

/** `work` once the API's other writes of the archive of `dir` are done: the ids it finds are still
 * the ones there when it writes (a run may add some meanwhile: a name taken then gets a new id). */
export const inArchiveTurn = <T>(dir: string, work: () => Promise<T>) => inTurn(`archive ${dir}`, work);

/** `work`, a bad request it finds (a query, a body) answered naming `operation`. */
async function naming<T>(operation: string, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw refusal(error, operation);
  }
}

export function mountMemoryArchiveRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/agents/:agentId/memory/archive`,
    handle(async (c: Context) => {
      const query = await naming(GET, () => queryOf(c, ListQuery));
      const place = await placeOf(oh, c);
      const dir = await archiveDir(place.settings, GET);
      const entries = (await readArchive(dir)).map((entry) => shownEntry(entry, place.settings.hide));
      return c.json(page(entries, query));
    }),
  );
  app.post(
    `${H}/agents/:agentId/memory/archive`,
    handle(async (c: Context) => {
      const place = await placeOf(oh, c);
      const body = await naming(ADD, async () => check(AddBody, await bodyOf(c, ADD_MAX_BYTES)));
      const dir = await archiveDir(place.settings, ADD);
      // A new id is no other's: a file of its name is met only as it is written (then it gets another).
      const [entry] = await inArchiveTurn(dir, () => addEntries(dir, [{ content: body.content, ...(body.metadata && { metadata: body.metadata }) }], new Set(), stillOwned(oh, c, place.sessionId)));
      return c.json({ entry: shownEntry(entry!, place.settings.hide) }, 201);
    }),
  );
}
