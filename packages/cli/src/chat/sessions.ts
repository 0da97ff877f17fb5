// The sessions a chat can go back to, from the server's REST API (GET /sessions, newest first),
// and the copies it can make of them (POST /sessions/:id/fork).
import { randomBytes } from "node:crypto";
import { createSessionsApi } from "@harness/client";
import type { ForkResult } from "@harness/protocol";
import { z } from "zod";
import { serverEndpoint } from "./server-url.ts";

/** How long the server has to answer the chat: its connection, and each of its requests about sessions. */
export const CONNECT_TIMEOUT_MS = 10_000;

const SessionList = z.array(z.object({ sessionId: z.string(), updatedAt: z.unknown().optional() }).passthrough());

/** The ids of `userId`'s sessions on the server at `url` (http(s) or ws(s)), most recently used
 * first; throws an Error saying why the server could not tell. */
export async function sessionIds(url: string, userId: string, token: string | undefined, signal?: AbortSignal): Promise<string[]> {
  const list = serverEndpoint(url, "sessions");
  list.searchParams.set("userId", userId);
  const response = await fetch(list, { headers: token ? { authorization: `Bearer ${token}` } : {}, ...(signal && { signal }) });
  if (!response.ok) {
    const body = await response.text().catch(() => "");
    const said = /"error"\s*:\s*"([^"]*)"/.exec(body)?.[1];
    throw new Error(`the server answered ${response.status} to the list of sessions${said ? `: ${said}` : ""}`);
  }
  const parsed = SessionList.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new Error("the server's list of sessions is not one this chat can read");
  return parsed.data.map((session) => session.sessionId);
}

/** A new session's id, as the chat names the sessions it starts. */
export function newSessionId(): string {
  return `chat-${randomBytes(4).toString("hex")}`;
}

/** A new session (a fresh id) that starts as a copy of the whole of `sourceId`, which is left as
 * it was; throws an Error saying why the server did not make it. */
export async function forkSession(url: string, userId: string, token: string | undefined, sourceId: string, signal?: AbortSignal): Promise<ForkResult> {
  const api = createSessionsApi({ url, userId, ...(token && { token }) });
  return api.fork(sourceId, { sessionId: newSessionId(), ...(signal && { signal }) });
}
