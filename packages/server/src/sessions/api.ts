// Sessions over HTTP:
//   GET    /sessions?userId=U                → 200 [{sessionId, title, status, messageCount, createdAt, updatedAt}]
//   POST   /sessions {userId, sessionId?, title?} → 201 {sessionId}            (409 when the id is taken)
//   PATCH  /sessions/:id {userId, title}     → 200 {sessionId, title}
//   DELETE /sessions/:id?userId=U            → 200 {sessionId, deleted: true}
//   POST   /sessions/:id/fork {userId, messageId?, sessionId?, title?} → 201 {sessionId, prompt?, warning?}
//          (at a user message: the conversation before it, whose prompt comes back for the input;
//          at a reply: up to and including it; the files as they were there, or `warning` says why not;
//          without a title, the title the source was given, if any)
//   GET    /sessions/:id?userId=U            → 200 {sessionId, state}   (the conversation as it is now)
//   GET    /sessions/:id/files?userId=U&prefix=P → 200 {paths, fuzzy}
//          (for completion: the paths of the session's workspace, its project when the server has
//          one, that start with P, else (fuzzy) that hold its characters in order, as a chat's
//          own @path completion; folders ending in "/", at most 200; see files.ts)
// userId may come from the header x-harness-user instead. A session of another user is answered
// 404, exactly as one that does not exist. Bad input is answered 400 naming the field.
import { existsSync } from "node:fs";
import { cp, lstat, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Context, Hono } from "hono";
import { z } from "zod";
import { describeZodError, emptyState, type ForkResult, type SessionFiles, type SessionRead, type SessionSummary } from "@harness/protocol";
import { contentTypeProblem } from "@harness/runner/body";
import { copyConversation } from "@harness/session";
import { notTheirs, tokenUsers } from "../auth/auth.ts";
import { readBody } from "../request-body.ts";
import { restoreForkFiles } from "./fork-files.ts";
import { RelativePathSchema, sessionFiles } from "./files.ts";
import { IdSchema, repeatedParameter, sessionKey } from "../ids.ts";
import { defaultTitle, TITLE_CONTROLS } from "../sqlite/catalog.ts";
import type { SessionRegistry } from "../registry.ts";
import type { SqliteDatabase } from "../sqlite/store.ts";
import type { ServerLog } from "../log/writer.ts";

export type SessionsApiOptions = {
  db: SqliteDatabase;
  registry: SessionRegistry;
  /** The session's own workspace, removed with it and copied into its forks; undefined when every
   * session works in one directory (ServerOptions.projectDir), which is then left alone. */
  workspaceOf(userId: string, sessionId: string): string | undefined;
  /** The directory the session works in: its own workspace, or the server's project. */
  workDirOf(userId: string, sessionId: string): string;
  /** The other files that belong to the session, removed with it. */
  filesOf(userId: string, sessionId: string): string[];
  /** The runner's own state for the session's workspace (its checkpoints among it). */
  stateOf(userId: string, sessionId: string): string;
  log: ServerLog;
  /** Told as a session is made here (created, or forked from `forkedFrom`) and as one is deleted;
   * must return at once. */
  onSessionEvent?(userId: string, sessionId: string, event: { type: "created"; forkedFrom?: string } | { type: "deleted" }): void;
};

export const USER_HEADER = "x-harness-user";
/** Far above any body these routes take (ids and a title), far below what could hurt the server. */
export const MAX_BODY_BYTES = 64 * 1024;

const Title = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  // A lone surrogate cannot be stored as UTF-8: it would come back as U+FFFD.
  .refine((title) => title.isWellFormed(), "must not contain unpaired surrogates")
  .refine((title) => !TITLE_CONTROLS.test(title), "must not contain control characters");
const CreateBody = z.strictObject({ userId: IdSchema.optional(), sessionId: IdSchema.optional(), title: Title.optional() });
const RenameBody = z.strictObject({ userId: IdSchema.optional(), title: Title });
const DeleteBody = z.strictObject({ userId: IdSchema.optional() });
const ForkBody = z.strictObject({
  userId: IdSchema.optional(),
  messageId: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters").optional(),
  sessionId: IdSchema.optional(),
  title: Title.optional(),
});

export class BadRequest extends Error {
  readonly status: 400 | 403 | 413 | 415;
  constructor(message: string, status: 400 | 403 | 413 | 415 = 400) {
    super(message);
    this.status = status;
  }
}

/** `value` as `schema` has it; `where` names the value in messages (a request body by default). */
export function check<T>(schema: z.ZodType<T>, value: unknown, where = "body"): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new BadRequest(describeZodError(parsed.error, where));
}

/** The body as JSON ({} when empty), read no further than `max` bytes (MAX_BODY_BYTES unless given). */
export async function bodyOf(c: Context, max = MAX_BODY_BYTES): Promise<unknown> {
  const bytes = await readBody(c, max, {
    tooLarge: () => new BadRequest(`body is larger than ${max} bytes`, 413),
    encoded: (encoding) => new BadRequest(`Content-Encoding ${encoding} is not supported: send the body as it is`, 415),
  });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new BadRequest("body is not valid UTF-8");
  }
  if (text.trim() === "") return {};
  // A body without a Content-Type is taken (programs), one with another type is not (web pages).
  const contentType = c.req.header("content-type");
  const badType = contentType === undefined ? undefined : contentTypeProblem(contentType);
  if (badType) throw new BadRequest(badType, 415);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequest(`body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The user a request speaks for, named by the header, the query or the body (`fromBody`): any of
 * them, and those given must agree. With `orTokens`, a request that names none speaks for the user
 * its token is bound to (HARNESS_TOKENS_FILE), when it has one. */
export function userOf(c: Context, fromBody?: string, orTokens = false): string {
  const header = c.req.header(USER_HEADER);
  const given = [
    { where: `the ${USER_HEADER} header`, userId: header === undefined ? undefined : check(IdSchema, header, USER_HEADER) },
    { where: "the query", userId: queryParam(c, "userId") },
    { where: "the body", userId: fromBody },
  ].filter((source) => source.userId !== undefined);
  const bound = tokenUsers.get(c.req.raw);
  if (given.length === 0 && orTokens && bound !== undefined) return bound;
  if (given.length === 0) throw new BadRequest(`userId: is required (in the body or query, or the ${USER_HEADER} header)`);
  const [first, ...others] = given;
  const other = others.find((source) => source.userId !== first.userId);
  if (other) throw new BadRequest(`userId: ${first.where} and ${other.where} name different users`);
  const refused = notTheirs(bound, first.userId!);
  if (refused) throw new BadRequest(refused, 403);
  return first.userId!;
}

/** A value given in the query at most once, an id unless `schema` says otherwise. */
export function queryParam(c: Context, name: string, schema: z.ZodType<string> = IdSchema): string | undefined {
  const values = c.req.queries(name);
  if (values === undefined || values.length === 0) return undefined;
  const repeated = repeatedParameter(name, values);
  if (repeated) throw new BadRequest(repeated);
  return check(schema, values[0], name);
}

/** Whether a fork copies the file at `path`: not a socket, a named pipe or a device, which cannot be
 * copied (a daemon's socket, git fsmonitor's among them) and mean nothing without their process. */
async function copyable(path: string): Promise<boolean> {
  try {
    const stats = await lstat(path);
    return !(stats.isSocket() || stats.isFIFO() || stats.isBlockDevice() || stats.isCharacterDevice());
  } catch (error) {
    // A file gone since its directory was read (the source may be at work) is not copied; for any
    // other failure cp says what it is.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** Whether a user's session exists (stored, or opened and not stored yet), its state left unread. */
export function sessionExists({ db, registry }: Pick<SessionsApiOptions, "db" | "registry">) {
  return async (userId: string, sessionId: string): Promise<boolean> => db.catalog.exists(userId, sessionId) || (await registry.live(userId, sessionId)) !== undefined;
}

export function mountSessionsApi(app: Hono, options: SessionsApiOptions): void {
  const { db, registry } = options;
  const catalog = db.catalog;
  const notFound = (c: Context, sessionId: string) => c.json({ error: `no session "${sessionId}"` }, 404);
  /** The delete under way of each session (user and session id), settled whatever its outcome. */
  const deleting = new Map<string, Promise<boolean>>();
  const exists = sessionExists(options);
  const tell: NonNullable<SessionsApiOptions["onSessionEvent"]> = (userId, sessionId, event) => {
    try {
      options.onSessionEvent?.(userId, sessionId, event);
    } catch (error) {
      options.log(`telling of session ${userId}/${sessionId} (${event.type}) failed: ${(error as Error).message}`, { level: "error" });
    }
  };

  const handle =
    (fn: (c: Context) => Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      try {
        return await fn(c);
      } catch (error) {
        if (error instanceof BadRequest) return c.json({ error: error.message }, error.status);
        throw error;
      }
    };

  app.get(
    "/sessions",
    handle(async (c) => {
      const userId = userOf(c);
      const sessions: SessionSummary[] = [];
      for (const { named, ...summary } of catalog.list(userId)) {
        sessions.push(summary);
        // A session in memory is ahead of its stored snapshot.
        const live = await registry.live(userId, summary.sessionId);
        if (!live) continue;
        const { state } = live.snapshot();
        summary.status = state.status;
        summary.messageCount = state.messages.length;
        if (!named) summary.title = defaultTitle(state.messages);
      }
      return c.json(sessions);
    }),
  );

  app.get(
    "/sessions/:id",
    handle(async (c) => {
      const sessionId = check(IdSchema, c.req.param("id"), "sessionId");
      const userId = userOf(c);
      const conversation = await registry.conversation(userId, sessionId);
      if (!conversation) return (await exists(userId, sessionId)) ? c.json({ sessionId, state: emptyState() } satisfies SessionRead) : notFound(c, sessionId);
      return c.json({ sessionId, state: conversation.state } satisfies SessionRead);
    }),
  );

  app.post(
    "/sessions",
    handle(async (c) => {
      const body = check(CreateBody, await bodyOf(c));
      const userId = userOf(c, body.userId);
      const sessionId = body.sessionId ?? crypto.randomUUID();
      if ((await registry.live(userId, sessionId)) || !catalog.create(userId, sessionId, { title: body.title })) {
        return c.json({ error: `session "${sessionId}" already exists` }, 409);
      }
      tell(userId, sessionId, { type: "created" });
      return c.json({ sessionId }, 201);
    }),
  );

  app.patch(
    "/sessions/:id",
    handle(async (c) => {
      const sessionId = check(IdSchema, c.req.param("id"), "sessionId");
      const body = check(RenameBody, await bodyOf(c));
      const userId = userOf(c, body.userId);
      if (!catalog.rename(userId, sessionId, body.title)) {
        // Open on a socket but not used yet, so not stored: named, it is stored (and listed) now.
        const live = await registry.live(userId, sessionId);
        if (!live || !catalog.create(userId, sessionId, { title: body.title })) return notFound(c, sessionId);
      }
      return c.json({ sessionId, title: body.title });
    }),
  );

  app.delete(
    "/sessions/:id",
    handle(async (c) => {
      const sessionId = check(IdSchema, c.req.param("id"), "sessionId");
      const body = check(DeleteBody, await bodyOf(c));
      const userId = userOf(c, body.userId);
      // Deletes of one session run one after the other: of several at once, one deletes it and the
      // others find it gone.
      const key = sessionKey(userId, sessionId);
      const earlier = deleting.get(key);
      const deletion = (async () => {
        await earlier;
        if (!(await exists(userId, sessionId))) return false;
        await registry.remove(userId, sessionId, `session "${sessionId}" was deleted`);
        const paths = [options.workspaceOf(userId, sessionId), ...options.filesOf(userId, sessionId)].filter((path) => path !== undefined);
        // Tried again when a file is added as it is removed (ENOTEMPTY): a write to the workspace
        // over the API that began while the session was there may end now (none begins after).
        await Promise.all(paths.map((path) => rm(path, { recursive: true, force: true, maxRetries: 3 }).catch((error: Error) => options.log(`cannot remove ${path}: ${error.message}`, { level: "error" }))));
        return true;
      })();
      const settled = deletion.catch(() => false);
      deleting.set(key, settled);
      try {
        if (!(await deletion)) return notFound(c, sessionId);
      } finally {
        if (deleting.get(key) === settled) deleting.delete(key);
      }
      tell(userId, sessionId, { type: "deleted" });
      return c.json({ sessionId, deleted: true });
    }),
  );

  app.get(
    "/sessions/:id/files",
    handle(async (c) => {
      const sessionId = check(IdSchema, c.req.param("id"), "sessionId");
      const prefix = queryParam(c, "prefix", RelativePathSchema) ?? "";
      const userId = userOf(c);
      if (!(await exists(userId, sessionId))) return notFound(c, sessionId);
      const answer: SessionFiles = await sessionFiles(options.workDirOf(userId, sessionId), prefix, c.req.raw.signal);
      return c.json(answer);
    }),
  );

  app.post(
    "/sessions/:id/fork",
    handle(async (c) => {
      const sourceId = check(IdSchema, c.req.param("id"), "sessionId");
      const body = check(ForkBody, await bodyOf(c));
      const userId = userOf(c, body.userId);
      const source = await registry.conversation(userId, sourceId);
      if (!source) return notFound(c, sourceId);
      const copy = copyConversation(source, body.messageId);
      if (!copy.ok) throw new BadRequest(`messageId: ${copy.message}`);
      const sessionId = body.sessionId ?? crypto.randomUUID();
      const taken = () => c.json({ error: `session "${sessionId}" already exists` }, 409);
      if (await exists(userId, sessionId)) return taken();
      // The id is claimed (atomically) before any file is copied: a fork that loses a race for it
      // copies nothing into the winner's workspace.
      const { state, transcript, marks, prompt } = copy.value;
      let warning: string | undefined;
      // Without a title of its own, the copy keeps the one its source was given (none: it is listed
      // by its first prompt, as its source is).
      const title = body.title ?? catalog.titleOf(userId, sourceId);
      if (!catalog.create(userId, sessionId, { title, snapshot: { state, seq: 0, transcript, marks } })) return taken();
      // The copy's files are the source's files as they are now, then put back as they were at the
      // fork point; whatever a deleted session of the same id left behind goes first.
      const target = options.workspaceOf(userId, sessionId);
      const sourceWorkspace = options.workspaceOf(userId, sourceId);
      const targetState = options.stateOf(userId, sessionId);
      const missingIsNothing = (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      };
      try {
        await rm(targetState, { recursive: true, force: true });
        if (target !== undefined && sourceWorkspace !== undefined) {
          await rm(target, { recursive: true, force: true });
          await cp(sourceWorkspace, target, { recursive: true, verbatimSymlinks: true, filter: copyable }).catch(missingIsNothing);
        }
        // The checkpoints too, so that the copy can rewind to the messages it shares with its
        // source (their ids are kept); not the ends of the source's runs kept for its server, nor
        // the lock of a git at work on the source's checkpoints (the copy's would stay locked).
        const sourceState = options.stateOf(userId, sourceId);
        const copied = async (path: string) => path !== join(sourceState, "finished-runs") && !path.endsWith(".lock") && (await copyable(path));
        await cp(sourceState, targetState, { recursive: true, verbatimSymlinks: true, filter: copied }).catch(missingIsNothing);
        if (target !== undefined && copy.value.filesBefore !== undefined && existsSync(target)) {
          const notRestored = await restoreForkFiles(target, targetState, copy.value.filesBefore);
          if (notRestored !== undefined) warning = `the fork's files are the source's as they are now: ${notRestored}`;
        }
      } catch (error) {
        options.log(`cannot copy the files of ${userId}/${sourceId} to ${target ?? targetState}: ${(error as Error).message}`, { level: "error", user: userId, session: sourceId });
        await registry.remove(userId, sessionId, `session "${sessionId}" could not be made`);
        if (target !== undefined) await rm(target, { recursive: true, force: true }).catch(() => {});
        await rm(targetState, { recursive: true, force: true }).catch(() => {});
        return c.json({ error: `cannot copy the files of session "${sourceId}": ${(error as NodeJS.ErrnoException).code ?? "failed"}` }, 500);
      }
      // The MCP servers its source's API caller approved are the copy's too (each for its entry as
      // approved: the copy's .mcp.json is its source's).
      for (const approval of db.mcpApprovals.list(userId, sourceId)) db.mcpApprovals.put(userId, sessionId, approval);
      // So are the tools programs registered for it.
      for (const tool of db.registeredTools.list(userId, sourceId)) db.registeredTools.add(userId, sessionId, tool);
      tell(userId, sessionId, { type: "created", forkedFrom: sourceId });
      const answer: ForkResult = { sessionId, ...(prompt !== undefined && { prompt }), ...(warning !== undefined && { warning }) };
      return c.json(answer, 201);
    }),
  );
}
