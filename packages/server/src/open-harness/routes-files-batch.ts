// Files over the Open Harness API, many at a time: search (by glob and/or a regular expression of
// their lines), upload (one file, or many keeping their folders, as multipart/form-data) and a ZIP
// of many. The workspace is a session's, named by session_id in the body (a form field, or the query,
// for the uploads).
import { Readable } from "node:stream";
import type { Context } from "hono";
import { z } from "zod";
import { IdSchema } from "../ids.ts";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, harnessOf, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { type Form, formOf, sizeOf } from "./multipart.ts";
import { ownSession, stillOwned } from "./session-of.ts";
import { downloadEntries, DOWNLOAD_MAX_ENTRIES, uploadBatch } from "./workspace-batch.ts";
import { WRITE_MAX_BYTES, writeFileAt } from "./workspace-files.ts";
import { WorkspacePath } from "./workspace-paths.ts";
import { searchFiles } from "./workspace-search.ts";
import { zipOf } from "./zip-writer.ts";

/** A batch upload takes at most this many files, of at most this many bytes in all (the spec's). */
export const UPLOAD_BATCH_MAX_FILES = 500;
export const UPLOAD_BATCH_MAX_BYTES = 100 * 1024 * 1024;
/** Room in a form beside its files' bytes: its other fields, the parts' headers and boundaries. */
const FORM_SLACK = 1024 * 1024;
/** download-batch's JSON: 1000 paths of a few hundred bytes each. */
const PATHS_BODY_MAX = 1024 * 1024;

const Pattern = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .max(4096, "must be at most 4096 characters")
  .refine((value) => !value.includes("\0"), "must not contain NUL");
const SearchBody = z
  .strictObject({
    session_id: IdSchema,
    glob: Pattern.optional(),
    grep: Pattern.optional(),
    path: WorkspacePath.optional(),
    max_results: z.number({ error: "must be a number" }).int("must be an integer").min(1, "must be at least 1").max(1000, "must be at most 1000").optional(),
    include_ignored: z.boolean({ error: "must be true or false" }).optional(),
  })
  .refine((body) => body.glob !== undefined || body.grep !== undefined, { message: "give glob, grep or both", path: ["glob"] });
const DownloadBody = z.strictObject({
  session_id: IdSchema,
  paths: z.array(WorkspacePath).min(1, "must name at least one path").max(DOWNLOAD_MAX_ENTRIES, `must name at most ${DOWNLOAD_MAX_ENTRIES} paths`),
});
const Flag = z.enum(["true", "false"], { error: "must be true or false" }).transform((value) => value === "true");

async function workspaceOf(oh: OpenHarness, c: Context, sessionId: string): Promise<string> {
  return oh.workDirOf(await ownSession(oh, c, sessionId), sessionId);
}

/** The session a form names: its session_id field, or the query's (not two different ones). */
function sessionOfForm(c: Context, form: Form): string {
  const inForm = form.fields.get("session_id");
  const inQuery = c.req.query("session_id");
  if (inForm !== undefined && inQuery !== undefined && inForm !== inQuery) throw new ApiError(400, "invalid_request", "session_id: the form and the query name different sessions");
  return check(IdSchema, inForm ?? inQuery, "session_id");
}

/** The form's text field `name`, checked by `schema`. */
const fieldOf = <T>(form: Form, name: string, schema: z.ZodType<T>): T | undefined => {
  const value = form.fields.get(name);
  return value === undefined ? undefined : check(schema, value, name);
};

export function mountFileBatchRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    `${H}/files/search`,
    handle(async (c) => {
      harnessOf(c);
      const body = check(SearchBody, await bodyOf(c));
      const root = await workspaceOf(oh, c, body.session_id);
      const found = await searchFiles(root, { glob: body.glob, grep: body.grep, path: body.path ?? "", maxResults: body.max_results ?? 100, includeIgnored: body.include_ignored ?? false });
      return c.json({ ...found, ...(found.reason === "max_results" && { limit: body.max_results ?? 100 }) });
    }),
  );
  app.post(
    `${H}/files/upload`,
    handle(async (c) => {
      harnessOf(c);
      const form = await formOf(c, WRITE_MAX_BYTES + FORM_SLACK, 8, "files.upload", ["session_id", "path", "file", "overwrite"]);
      try {
        const sessionId = sessionOfForm(c, form);
        const files = form.files.get("file") ?? [];
        if (files.length !== 1 || form.fields.has("file")) throw new ApiError(400, "invalid_request", files.length > 1 ? "file: given more than once (upload-batch takes many)" : "file: required, as a part with a filename", "files.upload");
        const file = files[0];
        if (file.size > WRITE_MAX_BYTES) throw new ApiError(413, "payload_too_large", `file: larger than ${sizeOf(WRITE_MAX_BYTES)}, the most a file written over this API may be`, "files.upload");
        let path = fieldOf(form, "path", WorkspacePath);
        if (path === undefined) throw new ApiError(400, "invalid_request", "path: required (the file's path in the workspace)", "files.upload");
        // A path that names a folder ("/", "docs/") is where the file goes, by its own name.
        if (path === "" || /\/$/.test(form.fields.get("path")!)) path = check(WorkspacePath, path === "" ? file.name : `${path}/${file.name}`, "filename");
        const root = await workspaceOf(oh, c, sessionId);
        const written = await writeFileAt(root, path, new Uint8Array(await file.arrayBuffer()), fieldOf(form, "overwrite", Flag) ?? false, stillOwned(oh, c, sessionId));
        return c.json(written, written.created ? 201 : 200);
      } finally {
        form.release();
      }
    }),
  );
  app.post(
    `${H}/files/upload-batch`,
    handle(async (c) => {
      harnessOf(c);
      const form = await formOf(c, UPLOAD_BATCH_MAX_BYTES + FORM_SLACK, UPLOAD_BATCH_MAX_FILES + 16, "files.uploadBatch", ["session_id", "base_path", "files", "files[]", "overwrite"]);
      try {
        const sessionId = sessionOfForm(c, form);
        if (form.fields.has("files") || form.fields.has("files[]")) throw new ApiError(400, "invalid_request", "files: each must be a part with a filename (its path from base_path)", "files.uploadBatch");
        const files = [...(form.files.get("files") ?? []), ...(form.files.get("files[]") ?? [])];
        if (files.length === 0) throw new ApiError(400, "invalid_request", "files: required, one part a file (its filename its path from base_path)", "files.uploadBatch");
        if (files.length > UPLOAD_BATCH_MAX_FILES) throw new ApiError(413, "payload_too_large", `files: ${files.length} given, at most ${UPLOAD_BATCH_MAX_FILES} are taken at once`, "files.uploadBatch");
        const total = files.reduce((sum, file) => sum + file.size, 0);
        if (total > UPLOAD_BATCH_MAX_BYTES) throw new ApiError(413, "payload_too_large", `files: larger than ${sizeOf(UPLOAD_BATCH_MAX_BYTES)} in all`, "files.uploadBatch");
        const base = fieldOf(form, "base_path", WorkspacePath) ?? "";
        const overwrite = fieldOf(form, "overwrite", Flag) ?? false;
        const root = await workspaceOf(oh, c, sessionId);
        return c.json(await uploadBatch(root, base, files, overwrite, stillOwned(oh, c, sessionId)));
      } finally {
        form.release();
      }
    }),
  );
  app.post(
    `${H}/files/download-batch`,
    handle(async (c) => {
      harnessOf(c);
      const body = check(DownloadBody, await bodyOf(c, PATHS_BODY_MAX));
      const entries = await downloadEntries(await workspaceOf(oh, c, body.session_id), body.paths);
      const archive = Readable.toWeb(Readable.from(zipOf(entries))) as ReadableStream;
      return new Response(archive, { status: 200, headers: { "content-type": "application/zip", "content-disposition": 'attachment; filename="files.zip"' } });
    }),
  );
}
