// Sessions over the Open Harness API: list, create, get, end, history, and a message sent (a submit)
// with its reply waited for or streamed. Sessions are the Harness sessions API's, through forward().
import type { Context } from "hono";
import { z } from "zod";
import type { HarnessMessage, SessionRead, SessionSummary } from "@harness/protocol";
import { IdSchema } from "../ids.ts";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import type { Execution } from "./executions.ts";
import { forward } from "./forward.ts";
import { H, handle, harnessOf, queryOf, refuseUnsupported, userOfRequest, type OpenHarness } from "./common.ts";
import { messageShape, page, PaginationSchema, sessionShape } from "./shapes.ts";
import { streamExecution } from "./sse.ts";

export const Name = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");
const CreateBody = z.strictObject({ name: Name.optional(), agent_id: z.unknown().optional(), skills: z.unknown().optional(), system_prompt: z.unknown().optional() });
const ListQuery = PaginationSchema.extend({ status: z.enum(["active", "paused", "ended"]).optional(), agent_id: z.string().optional() }).passthrough();
const HistoryQuery = PaginationSchema.extend({ since: z.string().optional() }).passthrough();
export const Content = z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).min(1, "must not be empty").max(100_000, "must be at most 100000 characters");
const UpdateBody = z.strictObject({ name: Name.optional(), status: z.unknown().optional() });
const MessageBody = z.strictObject({ content: Content });

/** The session's summary and its conversation; 404 (session_not_found) for one the user has not. */
export async function sessionOf(oh: OpenHarness, c: Context, userId: string, sessionId: string): Promise<{ summary: SessionSummary; messages: HarnessMessage[] }> {
  const read = await forward<SessionRead>(oh.app, c, "GET", `/sessions/${encodeURIComponent(sessionId)}?userId=${encodeURIComponent(userId)}`);
  const listed = (await forward<SessionSummary[]>(oh.app, c, "GET", `/sessions?userId=${encodeURIComponent(userId)}`)).find((s) => s.sessionId === sessionId);
  // Open on a socket but not used yet, so not listed: it is as new as it gets.
  const now = new Date().toISOString();
  const summary = listed ?? { sessionId, title: null, status: read.state.status, messageCount: read.state.messages.length, createdAt: now, updatedAt: now };
  return { summary: { ...summary, messageCount: read.state.messages.length }, messages: read.state.messages };
}

/** The Harness WebSocket's URL for the user's session (the spec's connect_url). */
export function connectUrl(c: Context, userId: string, sessionId: string): string {
  const ws = new URL(`/ws?userId=${encodeURIComponent(userId)}&sessionId=${encodeURIComponent(sessionId)}`, c.req.url);
  ws.protocol = ws.protocol === "https:" ? "wss:" : "ws:";
  return ws.toString();
}

/** Makes a session for `userId` (a new id unless given) by the sessions API's rules. */
export async function createSession(oh: OpenHarness, c: Context, userId: string, title?: string): Promise<string> {
  const made = await forward<{ sessionId: string }>(oh.app, c, "POST", "/sessions", { userId, ...(title !== undefined && { title }) });
  return made.sessionId;
}

/** Once the execution has ended, its prompt and its reply as Messages; 409 naming why when the prompt
 * was not taken (a run of another client under way, a server that is stopping). */
async function exchangeOf(execution: Execution, createdAt: string) {
  await execution.ended;
  const failure = execution.events.find((event) => event.type === "error");
  const messages = execution.watch.mine();
  const prompt = messages.find((m) => m.role === "user");
  const reply = messages.findLast((m) => m.role === "assistant");
  if (!prompt || !reply) {
    const message = failure?.type === "error" ? failure.message : "the message was not taken";
    throw new ApiError(409, failure?.type === "error" ? failure.code : "not_taken", message, "sessions.sendMessage");
  }
  return { message: messageShape(prompt, createdAt), response: messageShape(reply, createdAt) };
}

export function mountSessionRoutes(oh: OpenHarness): void {
  const { app, executions } = oh;
  const sessionIdOf = (c: Context) => check(IdSchema, c.req.param("sessionId"), "sessionId");

  app.get(
    `${H}/sessions`,
    handle(async (c) => {
      harnessOf(c);
      const query = queryOf(c, ListQuery);
      refuseUnsupported(query, ["agent_id"], "sessions.list");
      const userId = userOfRequest(c);
      const all = (await forward<SessionSummary[]>(app, c, "GET", `/sessions?userId=${encodeURIComponent(userId)}`)).map(sessionShape);
      return c.json(page(all.filter((s) => (query.status ?? s.status) === s.status), query));
    }),
  );

  app.post(
    `${H}/sessions`,
    handle(async (c) => {
      harnessOf(c);
      const body = check(CreateBody, await bodyOf(c));
      refuseUnsupported(body, ["agent_id", "skills", "system_prompt"], "sessions.create");
      const userId = userOfRequest(c);
      const sessionId = await createSession(oh, c, userId, body.name);
      const { summary } = await sessionOf(oh, c, userId, sessionId);
      return c.json({ session: sessionShape(summary), connect_url: connectUrl(c, userId, sessionId) }, 201);
    }),
  );

  app.get(
    `${H}/sessions/:sessionId`,
    handle(async (c) => {
      harnessOf(c);
      const { summary } = await sessionOf(oh, c, userOfRequest(c), sessionIdOf(c));
      return c.json({ session: sessionShape(summary) });
    }),
  );

  app.patch(
    `${H}/sessions/:sessionId`,
    handle(async (c) => {
      harnessOf(c);
      const sessionId = sessionIdOf(c);
      const body = check(UpdateBody, await bodyOf(c));
      refuseUnsupported(body, ["status"], "sessions.update");
      const userId = userOfRequest(c);
      if (body.name !== undefined) await forward(app, c, "PATCH", `/sessions/${encodeURIComponent(sessionId)}`, { userId, title: body.name });
      const { summary } = await sessionOf(oh, c, userId, sessionId);
      return c.json({ session: sessionShape(summary) });
    }),
  );

  app.delete(
    `${H}/sessions/:sessionId`,
    handle(async (c) => {
      harnessOf(c);
      const sessionId = sessionIdOf(c);
      const userId = userOfRequest(c);
      await forward(app, c, "DELETE", `/sessions/${encodeURIComponent(sessionId)}?userId=${encodeURIComponent(userId)}`);
      return c.body(null, 204);
    }),
  );

  app.get(
    `${H}/sessions/:sessionId/history`,
    handle(async (c) => {
      harnessOf(c);
      const query = queryOf(c, HistoryQuery);
      refuseUnsupported(query, ["since"], "sessions.history");
      const { summary, messages } = await sessionOf(oh, c, userOfRequest(c), sessionIdOf(c));
      return c.json(page(messages.map((m) => messageShape(m, summary.createdAt)), query));
    }),
  );

  const send = (stream: boolean) =>
    handle(async (c) => {
      harnessOf(c);
      const sessionId = sessionIdOf(c);
      const body = check(MessageBody, await bodyOf(c));
      const userId = userOfRequest(c);
      const { summary } = await sessionOf(oh, c, userId, sessionId);
      const execution = await executions.start(userId, sessionId, body.content);
      if (stream) return streamExecution(c, execution);
      return c.json(await exchangeOf(execution, summary.createdAt));
    });
  app.post(`${H}/sessions/:sessionId/message`, send(false));
  app.post(`${H}/sessions/:sessionId/message/stream`, send(true));
}
