// The routes whose operations the spec gives no session (files, hooks, MCP servers, skills) act on
// one of the user's sessions, named by session_id: read through the sessions API (forward()), with
// its rules (another user's session is not found), or only known to be theirs (ownSession()).
import type { Context } from "hono";
import { z } from "zod";
import type { SessionRead } from "@harness/protocol";
import { IdSchema } from "../ids.ts";
import { ApiError } from "./errors.ts";
import { forward } from "./forward.ts";
import { userOfRequest, type OpenHarness } from "./common.ts";

export const SessionQuery = z.object({ session_id: IdSchema }).passthrough();

/** The user's session `sessionId`, as it is now; 404 (session_not_found) for one they have not. */
export async function sessionOf(oh: OpenHarness, c: Context, sessionId: string): Promise<{ userId: string; read: SessionRead }> {
  const userId = userOfRequest(c);
  const read = await forward<SessionRead>(oh.app, c, "GET", `/sessions/${encodeURIComponent(sessionId)}?userId=${encodeURIComponent(userId)}`);
  return { userId, read };
}

/** The request's user, whose session `sessionId` must be (404, session_not_found, as sessionOf()),
 * for a route that needs its workspace or settings only: its state, which may be long or damaged,
 * is not read. */
export async function ownSession(oh: OpenHarness, c: Context, sessionId: string): Promise<string> {
  const userId = userOfRequest(c);
  if (!(await oh.sessionExists(userId, sessionId))) throw new ApiError(404, "session_not_found", `no session "${sessionId}"`);
  return userId;
}

/** A check that throws as ownSession() does once the session is gone (deleted meanwhile), for the
 * writes of its workspace, which must not make it again (SessionCheck). */
export function stillOwned(oh: OpenHarness, c: Context, sessionId: string): () => Promise<string> {
  return () => ownSession(oh, c, sessionId);
}
