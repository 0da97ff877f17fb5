// The spec's interactive session channel (sessions.connect): a WebSocket at
// /v1/harnesses/harness/sessions/{id}/connect that speaks the spec's messages, not the Harness
// wire protocol of /ws. The handshake is checked here (the harness, the session, its user, as the
// REST routes check them) and the socket then answered by connect-socket.ts.
import type { IncomingHttpHeaders } from "node:http";
import { notTheirs } from "../auth/auth.ts";
import { IdSchema, repeatedParameter } from "../ids.ts";
import { USER_HEADER } from "../sessions/api.ts";
import type { ChannelOpening, WebSocketChannel } from "../websocket-channel.ts";
import { PREFIX, type OpenHarness } from "./common.ts";
import { attachConnectSocket } from "./connect-socket.ts";
import { servedElsewhere } from "./harness-registry.ts";
import { HARNESS_ID } from "./manifest.ts";

const PATH = new RegExp(`^${PREFIX}/harnesses/([^/]+)/sessions/([^/]+)/connect$`);

const refused = (status: number, message: string): ChannelOpening => ({ refused: { status, message } });

/** The user the handshake speaks for: the one its x-harness-user header or userId query parameter
 * names (a browser's WebSocket sends no header of its own), else its token's; a refusal else. */
function userOf(url: URL, headers: IncomingHttpHeaders, tokenUser: string | undefined): string | ChannelOpening {
  const fromQuery = url.searchParams.getAll("userId");
  const repeated = repeatedParameter("userId", fromQuery);
  if (repeated) return refused(400, repeated);
  const header = headers[USER_HEADER];
  const given = [...(typeof header === "string" ? [header] : []), ...fromQuery];
  if (given.length === 0) return tokenUser ?? refused(400, `userId: is required (in the query, or the ${USER_HEADER} header)`);
  if (given.some((userId) => userId !== given[0])) return refused(400, `userId: the ${USER_HEADER} header and the query name different users`);
  const checked = IdSchema.safeParse(given[0]);
  if (!checked.success) return refused(400, `userId: ${checked.error.issues[0].message}`);
  const notYours = notTheirs(tokenUser, checked.data);
  return notYours ? refused(403, notYours) : checked.data;
}

export function sessionsConnectChannel(oh: OpenHarness): WebSocketChannel {
  return {
    at: (url) => PATH.test(url.pathname),
    async open(url, headers, tokenUser) {
      const [, harnessId, rawSession] = PATH.exec(url.pathname)!;
      if (harnessId !== HARNESS_ID) {
        const registered = oh.harnesses.get(harnessId);
        return registered ? refused(421, servedElsewhere(registered).message) : refused(404, `no harness "${harnessId}": this server serves the harness "${HARNESS_ID}" (see GET /v1/harnesses)`);
      }
      let sessionId: string;
      try {
        sessionId = decodeURIComponent(rawSession);
      } catch {
        return refused(400, "sessionId: is not URL-encoded text");
      }
      const checked = IdSchema.safeParse(sessionId);
      if (!checked.success) return refused(400, `sessionId: ${checked.error.issues[0].message}`);
      const userId = userOf(url, headers, tokenUser);
      if (typeof userId !== "string") return userId;
      if (oh.stopping() !== undefined) return refused(503, "the server is stopping");
      if (!(await oh.sessionExists(userId, sessionId))) return refused(404, `no session "${sessionId}"`);
      return { userId, sessionId, attach: (ws) => attachConnectSocket(oh, ws, userId, sessionId) };
    },
  };
}
