// Files over the Open Harness API: the workspace of one of the user's sessions (session_id, in the
// query or the mkdir body), the directory its runs work in, listed, read (or downloaded), written,
// made and deleted. Paths are relative to it and never lead out of it (workspace-paths.ts).
import type { Context } from "hono";
import { z } from "zod";
import { IdSchema } from "../ids.ts";
import { bodyOf, check } from "../sessions/api.ts";
import { readBody } from "../request-body.ts";
import { ApiError } from "./errors.ts";
import { fileAnswer } from "./file-answer.ts";
import { H, handle, harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { ownSession, SessionQuery, stillOwned } from "./session-of.ts";
import { deleteAt, LIST_MAX, listFiles, makeDirectory, openFile, WRITE_MAX_BYTES, writeFileAt } from "./workspace-files.ts";
import { WorkspacePath } from "./workspace-paths.ts";
import { mountFileBatchRoutes } from "./routes-files-batch.ts";

const Flag = z.enum(["true", "false"], { error: "must be true or false" }).transform((value) => value === "true");
const ListQuery = SessionQuery.extend({
  path: WorkspacePath.optional(),
  recursive: Flag.optional(),
});
const DeleteQuery = SessionQuery.extend({ recursive: Flag.optional() });
const MkdirBody = z.strictObject({ session_id: IdSchema, path: WorkspacePath });
const MiB = 1024 * 1024;
// A file's route: its path is the rest, of any characters (a run may have put a line break in a name).
const FILE = `${H}/files/:path{[\\s\\S]+}`;

/** The directory the runs of the user's session `sessionId` work in; 404 for a session they have not. */
async function workspaceOf(oh: OpenHarness, c: Context, sessionId: string): Promise<string> {
  return oh.workDirOf(await ownSession(oh, c, sessionId), sessionId);
}

/** The path the route names, checked. */
function pathOf(c: Context): string {
  return check(WorkspacePath, c.req.param("path") ?? "", "path");
}

/** The request's body, at most WRITE_MAX_BYTES, as it came (the bytes of the file). */
function contentOf(c: Context): Promise<Uint8Array> {
  return readBody(c, WRITE_MAX_BYTES, {
    tooLarge: () => new ApiError(413, "payload_too_large", `body: a file written over this API is at most ${WRITE_MAX_BYTES / MiB} MiB`, "files.write"),
    encoded: (encoding) => new ApiError(415, "unsupported_media_type", `Content-Encoding ${encoding} is not supported: send the file as it is`, "files.write"),
  });
}

/** The file's bytes as the answer, typed; as an attachment when `download` names it. */
async function sendFile(oh: OpenHarness, c: Context, download?: string): Promise<Response> {
  harnessOf(c);
  const { session_id } = queryOf(c, SessionQuery);
  const relative = download === undefined ? pathOf(c) : check(WorkspacePath, download, "path");
  const { handle: file, info } = await openFile(await workspaceOf(oh, c, session_id), relative);
  return fileAnswer(c, file, info, download !== undefined);
}

export function mountFileRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/files`,
    handle(async (c) => {
      harnessOf(c);
      const query = queryOf(c, ListQuery);
      const relative = query.path ?? "";
      const { files, truncated } = await listFiles(await workspaceOf(oh, c, query.session_id), relative, query.recursive ?? false);
      return c.json({ files, path: relative === "" ? "/" : relative, ...(truncated && { truncated: true, limit: LIST_MAX }) });
    }),
  );
  app.post(
    `${H}/files/mkdir`,
    handle(async (c) => {
      harnessOf(c);
      const body = check(MkdirBody, await bodyOf(c));
      const made = await makeDirectory(await workspaceOf(oh, c, body.session_id), body.path, stillOwned(oh, c, body.session_id));
      return c.json(made, made.created ? 201 : 200);
    }),
  );
  // files/{path}/download is the download of {path}: where the spec's two routes overlap (a file
  // named "download" in a folder), the download wins.
  app.get(
    FILE,
    handle((c) => {
      const path = c.req.param("path") ?? "";
      return path.endsWith("/download") ? sendFile(oh, c, path.slice(0, -"/download".length)) : sendFile(oh, c);
    }),
  );
  app.put(
    FILE,
    handle(async (c) => {
      harnessOf(c);
      const { session_id } = queryOf(c, SessionQuery);
      const relative = pathOf(c);
      const root = await workspaceOf(oh, c, session_id);
      const written = await writeFileAt(root, relative, await contentOf(c), true, stillOwned(oh, c, session_id));
      return c.json(written, written.created ? 201 : 200);
    }),
  );
  app.delete(
    FILE,
    handle(async (c) => {
      harnessOf(c);
      const query = queryOf(c, DeleteQuery);
      const relative = pathOf(c);
      await deleteAt(await workspaceOf(oh, c, query.session_id), relative, query.recursive ?? false);
      return c.body(null, 204);
    }),
  );
  mountFileBatchRoutes(oh);
}
