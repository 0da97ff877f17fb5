// Resuming and forking a session over the Open Harness API. Fork is the Harness sessions API's own
// (the conversation, and the workspace's files as they were at the fork point), through forward().
// Resume: our sessions are never paused (each is woken from storage by its next message), so a
// resume finds the session active and answers it with the WebSocket it goes on over.
import type { Context } from "hono";
import { z } from "zod";
import type { ForkResult } from "@harness/protocol";
import { IdSchema } from "../ids.ts";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { forward } from "./forward.ts";
import { H, handle, harnessOf, userOfRequest, type OpenHarness } from "./common.ts";
import { connectUrl, Name, sessionOf } from "./routes-sessions.ts";
import { sessionShape } from "./shapes.ts";

const ResumeBody = z.strictObject({});
const ForkBody = z.strictObject({
  new_name: Name.optional(),
  from_message_id: z.string({ error: "must be a string" }).min(1, "must not be empty").max(200, "must be at most 200 characters").optional(),
});
/** The sessions API's names of the fork's fields, as this API names them. */
const FIELDS: [ours: string, theirs: string][] = [
  ["new_name", "title"],
  ["from_message_id", "messageId"],
];

/** `error` (the sessions API's refusal) naming the fields as the request did. */
function inOurWords(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 400) return error;
  let message = error.message;
  for (const [ours, theirs] of FIELDS) message = message.replace(new RegExp(`(^|; )${theirs}:`, "g"), `$1${ours}:`);
  return new ApiError(error.status, error.code, message, "sessions.fork");
}

export function mountResumeForkRoutes(oh: OpenHarness): void {
  const { app } = oh;
  const sessionIdOf = (c: Context) => check(IdSchema, c.req.param("sessionId"), "sessionId");

  app.post(
    `${H}/sessions/:sessionId/resume`,
    handle(async (c) => {
      harnessOf(c);
      const sessionId = sessionIdOf(c);
      check(ResumeBody, await bodyOf(c));
      const userId = userOfRequest(c);
      const { summary } = await sessionOf(oh, c, userId, sessionId);
      return c.json({ session: sessionShape(summary), connect_url: connectUrl(c, userId, sessionId) });
    }),
  );

  app.post(
    `${H}/sessions/:sessionId/fork`,
    handle(async (c) => {
      harnessOf(c);
      const sourceId = sessionIdOf(c);
      const body = check(ForkBody, await bodyOf(c));
      const userId = userOfRequest(c);
      const request = { userId, ...(body.new_name !== undefined && { title: body.new_name }), ...(body.from_message_id !== undefined && { messageId: body.from_message_id }) };
      const made = await forward<ForkResult>(app, c, "POST", `/sessions/${encodeURIComponent(sourceId)}/fork`, request).catch((error: unknown) => {
        throw inOurWords(error);
      });
      const { summary } = await sessionOf(oh, c, userId, made.sessionId);
      return c.json(
        {
          session: sessionShape(summary),
          forked_from: sourceId,
          message_count: summary.messageCount,
          // Forked at a user message: the conversation before it, and its prompt, to send again or change.
          ...(made.prompt !== undefined && { prompt: made.prompt }),
          // The files could not be put back as they were at the fork point: they are the source's as they are now.
          ...(made.warning !== undefined && { warning: made.warning }),
        },
        201,
      );
    }),
  );
}
