// The WebSocket endpoint: GET /ws?userId=…&sessionId=…[&since=N]. The upgrade is checked (token,
// query) before the handshake, so a bad request gets a plain HTTP status with a message.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { ErrorCodes, MAX_FRAME_BYTES, TOKEN_REFUSED_CLOSE, leftReasonOf } from "@harness/protocol";
import { answerRaw } from "@harness/runner/client-error";
import { errorFrame, SESSION_DELETED, SESSION_DELETED_CLOSE, type Connection } from "@harness/session";
import { crossSiteRefusal, notTheirs, requestToken } from "./auth/auth.ts";
import { tokenHolder, type UserTokens } from "./auth/user-tokens.ts";
import { parseWsQuery } from "./ws-query.ts";
import { frameText, type WebSocketChannel } from "./websocket-channel.ts";
import type { SessionRegistry } from "./registry.ts";
import type { ServerCounts } from "./metrics/counts.ts";
import type { LogLevel } from "./log/settings.ts";
import type { ServerLog } from "./log/writer.ts";
import { logAccess } from "./log/access.ts";

/** Frames above this close the socket (1009); frames between MAX_FRAME_BYTES and this get an error frame. */
export const WS_MAX_PAYLOAD = 16 * MAX_FRAME_BYTES;
/** A client this far behind on reading is disconnected; it reconnects with `since` and catches up. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export type WebSocketEndpoint = {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Refuses new sockets and ignores further commands (answering an error frame). */
  stopAccepting(): void;
  /** Closes every socket with 1001 (going away) and resolves when they are closed. */
  closeAll(): Promise<void>;
  /** Closes the sockets whose token no longer lets them in as their user (the tokens in force
   * changed) with TOKEN_REFUSED_CLOSE, which tells the client SDK to stop reconnecting. */
  refuseRevoked(): void;
};

export function createWebSocketEndpoint(options: {
  registry: SessionRegistry;
  token: string | undefined;
  /** Tokens bound to one user each (HARNESS_TOKENS_FILE): those in force (token → user), asked at
   * each handshake. Given, every handshake needs a token, even while there are none. */
  userTokens?: () => UserTokens;
  /** Pages besides loopback ones that may open a socket on a server without a token. */
  allowedOrigins?: ReadonlySet<string>;
  /** Whether a client that holds the session's seq `since` knew a session of that id that has been
   * deleted since (and no new one has been made). */
  deletedSince?: (userId: string, sessionId: string, since: number) => boolean;
  /** How often sockets are pinged; one silent for two of these is cut off (ServerOptions.heartbeatMs). */
  heartbeatMs: number;
  log: ServerLog;
  /** Channels at paths of their own (read at each handshake: they may be added after). */
  channels?: readonly WebSocketChannel[];
  counts?: Pick<ServerCounts, "connectionOpened" | "handshakeRefused" | "socketClosedAtOpen" | "refused">;
}): WebSocketEndpoint {
  const counts = options.counts;
  const userTokens = options.userTokens ?? (() => new Map<string, string>());
  const guarded = options.token !== undefined || options.userTokens !== undefined;
  // The token each socket was let in with, and as whom, for refuseRevoked.
  const admitted = new WeakMap<WebSocket, { token: string | undefined; userId: string; sessionId: string }>();
  /** Whether the tokens in force still let `token` in as `userId`. */
  const stillTaken = (token: string | undefined, userId: string) => {
    const holder = tokenHolder(token, options.token, userTokens());
    return holder !== undefined && !notTheirs(holder.user, userId);
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD, perMessageDeflate: false, clientTracking: true });
  // Each handshake's access line, at debug level (the lines of the connection and of a refusal say
  // what an operator reads): when it came, and as whom its token lets it in.
  const handshakes = new WeakMap<IncomingMessage, { started: number; user?: string }>();
  const handshakeAnswered = (req: IncomingMessage, status: number) => {
    const seen = handshakes.get(req);
    handshakes.delete(req);
    const url = new URL(req.url ?? "/", "http://localhost");
    const durationMs = seen ? performance.now() - seen.started : 0;
    logAccess(options.log, { method: req.method ?? "GET", url, status, durationMs, user: seen?.user, address: req.socket.remoteAddress, level: "debug" });
  };
  wss.on("headers", (_headers, req) => handshakeAnswered(req, 101));
  let closing = false;
  // A client that vanished without closing (a laptop asleep, a dropped NAT mapping) would hold its
  // session in memory for good: each socket is pinged, and one that has not answered the last ping
  // by the next is cut off.
  const answered = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!answered.has(ws)) {
        ws.terminate();
        continue;
      }
      answered.delete(ws);
      ws.ping();
    }
  }, options.heartbeatMs);
  heartbeat.unref();

  /** Answers a handshake with an HTTP status instead of upgrading it, and says so in the log: by
   * default at debug level (a client's own mistake, which it is told of); `seen`, a refusal an
   * operator is shown (a wrong token, another user's, a page of another site), with its text form
   * and its reason without advice. */
  function refuseHandshake(
    req: IncomingMessage,
    socket: Duplex,
    status: number,
    message: string,
    headers?: Record<string, string>,
    seen?: { level: LogLevel; line: string; why: string; user?: string },
  ): void {
    const address = req.socket.remoteAddress;
    options.log(seen?.line ?? `refused a WebSocket from ${address ?? "an unknown address"}: ${status} ${message}`, {
      level: seen?.level ?? "debug",
      msg: `refused a WebSocket: ${seen?.why ?? message}`,
      address,
      httpStatus: status,
      user: seen?.user,
    });
    counts?.handshakeRefused(status);
    answerRaw(socket, status, message, headers);
    handshakeAnswered(req, status);
  }

  /** Refuses a handshake whose token the tokens in force stopped taking while it was checked. */
  const refuseRevokedHandshake = (req: IncomingMessage, socket: Duplex) =>
    refuseHandshake(req, socket, 401, "missing or wrong token: send Authorization: Bearer <token> or ?token=<token>", { "WWW-Authenticate": "Bearer" });

  // A malformed handshake (a bad Sec-WebSocket-Key, a version other than 13 or 8, another method)
  // is refused by ws, which asks here rather than answer it itself: it is counted and answered as
  // the server's own refusals are.
  wss.on("wsClientError", (error, socket, req) => {
    if (req.method !== "GET") return refuseHandshake(req, socket, 405, `a WebSocket handshake is a GET, not a ${req.method}`, { Allow: "GET" });
    const versions = /Sec-WebSocket-Version/i.test(error.message) ? { "Sec-WebSocket-Version": "13, 8" } : undefined;
    refuseHandshake(req, socket, 400, `bad WebSocket handshake: ${error.message}`, versions);
  });

  function attach(ws: WebSocket, lease: Awaited<ReturnType<SessionRegistry["acquire"]>>, since: number | undefined, who: { userId: string; sessionId: string; address: string | undefined }): void {
    const { session } = lease;
    const fields = { user: who.userId, session: who.sessionId, address: who.address };
    options.log(`client connected to ${who.userId}/${who.sessionId} from ${who.address ?? "an unknown address"}`, { msg: "client connected", ...fields });
    const conn: Connection = {
      send(frame) {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
          // A close frame would queue behind the backlog; cut the connection instead.
          ws.terminate();
          return;
        }
        ws.send(frame);
      },
      close(code, reason) {
        ws.close(code, reason);
      },
    };
    const refuse = (message: string, code: string) => {
      counts?.refused(code);
      conn.send(errorFrame(message, code));
    };
    counts?.connectionOpened();
    answered.add(ws);
    ws.on("pong", () => answered.add(ws));
    ws.on("message", (data, binary) => {
      if (closing) refuse("the server is shutting down", ErrorCodes.internal);
      // Frames are JSON text: bytes in a binary frame were not meant as a command (and need not be UTF-8).
      else if (binary) refuse("binary frames are not taken: send each frame as JSON text", ErrorCodes.badFrame);
      else session.receive(conn, frameText(data));
    });
    ws.on("close", (code, reason) => {
      options.log(`client left ${who.userId}/${who.sessionId} (close code ${code})`, { msg: "client left", ...fields, closeCode: code });
      session.disconnect(conn);
      lease.release(leftReasonOf(reason.toString()));
    });
    ws.on("error", (err) => options.log(`websocket error: ${err.message}`, { level: "warn", ...fields }));
    // The first frames go out a turn after the handshake, so that a client that starts listening
    // when the socket opens does not miss them. Nothing is lost meanwhile: connect sends what the
    // client lacks as of the moment it runs.
    setImmediate(() => {
      if (ws.readyState === ws.OPEN) session.connect(conn, since);
    });
  }

  /** Opens `channel`'s socket once it has checked the handshake, which `token` let in as `tokenUser`. */
  function openChannel(channel: WebSocketChannel, req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, token: string | undefined, tokenUser: string | undefined): void {
    channel.open(url, req.headers, tokenUser).then(
      (opening) => {
        if ("refused" in opening) return refuseHandshake(req, socket, opening.refused.status, opening.refused.message);
        if (socket.destroyed) return;
        if (closing) return refuseHandshake(req, socket, 503, "the server is shutting down");
        // The tokens may have changed while the channel checked the handshake.
        if (guarded && !stillTaken(token, opening.userId)) return refuseRevokedHandshake(req, socket);
        wss.handleUpgrade(req, socket, head, (ws) => {
          if (guarded) admitted.set(ws, { token, userId: opening.userId, sessionId: opening.sessionId });
          answered.add(ws);
          ws.on("pong", () => answered.add(ws));
          opening.attach(ws);
        });
      },
      (error: Error) => refuseHandshake(req, socket, 500, error.message),
    );
  }

  return {
    handleUpgrade(req, socket, head) {
      socket.on("error", () => {});
      const handshake: { started: number; user?: string } = { started: performance.now() };
      handshakes.set(req, handshake);
      const url = new URL(req.url ?? "/", "http://localhost");
      if (closing) return refuseHandshake(req, socket, 503, "the server is shutting down");
      const crossSite = guarded ? undefined : crossSiteRefusal(req.headers.host, req.headers.origin, options.allowedOrigins ?? new Set());
      // Said in the log too: a browser shows the page nothing of a refused handshake.
      if (crossSite) return refuseHandshake(req, socket, 403, crossSite, undefined, { level: "warn", line: `WebSocket: ${crossSite}`, why: crossSite });
      const token = requestToken(req.headers.authorization, url);
      const holder = guarded ? tokenHolder(token, options.token, userTokens()) : {};
      const from = req.socket.remoteAddress ?? "an unknown address";
      if (!holder) {
        const why = "missing or wrong token";
        return refuseHandshake(req, socket, 401, `${why}: send Authorization: Bearer <token> or ?token=<token>`, { "WWW-Authenticate": "Bearer" }, { level: "warn", line: `refused a WebSocket from ${from}: ${why}`, why });
      }
      handshake.user = holder.user;
      const channel = options.channels?.find((each) => each.at(url));
      if (channel) return openChannel(channel, req, socket, head, url, token, holder.user);
      if (url.pathname !== "/ws") return refuseHandshake(req, socket, 404, `no WebSocket endpoint at ${url.pathname}; use /ws`);
      const query = parseWsQuery(url);
      if (!query.ok) return refuseHandshake(req, socket, 400, `bad /ws query: ${query.error}`);
      const { userId, sessionId, since } = query.value;
      if (notTheirs(holder.user, userId)) {
        const why = `the token is ${holder.user}'s, not ${userId}'s`;
        return refuseHandshake(req, socket, 403, notTheirs(holder.user, userId)!, undefined, { level: "warn", line: `refused a WebSocket from ${from}: ${why}`, why, user: userId });
      }
      // A client back from a connection that outlived its session (deleted meanwhile) is told so,
      // as the clients connected at the time were, not handed a new, empty session of that id.
      if (since !== undefined && options.deletedSince?.(userId, sessionId, since)) {
        return wss.handleUpgrade(req, socket, head, (ws) => {
          counts?.socketClosedAtOpen("session_deleted");
          ws.send(errorFrame("the session was deleted", SESSION_DELETED));
          ws.close(SESSION_DELETED_CLOSE, "the session was deleted");
        });
      }
      options.registry.acquire(userId, sessionId).then(
        (lease) => {
          if (closing || socket.destroyed) {
            lease.release();
            if (!socket.destroyed) refuseHandshake(req, socket, 503, "the server is shutting down");
            return;
          }
          // The tokens may have changed while the session was opened.
          if (guarded && !stillTaken(token, userId)) {
            lease.release();
            return refuseRevokedHandshake(req, socket);
          }
          // ws answers a malformed handshake itself and never calls back; the lease must not leak.
          let attached = false;
          socket.once("close", () => attached || lease.release());
          wss.handleUpgrade(req, socket, head, (ws) => {
            attached = true;
            if (guarded) admitted.set(ws, { token, userId, sessionId });
            attach(ws, lease, since, { userId, sessionId, address: req.socket.remoteAddress });
          });
        },
        (error: Error) => {
          const message = `cannot open session ${userId}/${sessionId}: ${error.message}`;
          options.log(message, { level: "error", msg: `cannot open the session: ${error.message}`, user: userId, session: sessionId });
          if (socket.destroyed) return;
          // A refused handshake's status and body reach no client (browsers and the SDK see only
          // that it failed): the socket is opened to say why, in an error frame, and closed.
          wss.handleUpgrade(req, socket, head, (ws) => {
            counts?.socketClosedAtOpen("cannot_open_session");
            ws.send(errorFrame(message, ErrorCodes.internal));
            ws.close(1011, closeReason(message));
          });
        },
      );
    },
    stopAccepting() {
      closing = true;
    },
    refuseRevoked() {
      for (const ws of wss.clients) {
        const seen = admitted.get(ws);
        if (!seen || ws.readyState !== ws.OPEN || stillTaken(seen.token, seen.userId)) continue;
        options.log(`closed a WebSocket of ${seen.userId}/${seen.sessionId}: its token is no longer accepted`, {
          msg: "closed a WebSocket: its token is no longer accepted",
          user: seen.userId,
          session: seen.sessionId,
        });
        admitted.delete(ws);
        ws.close(TOKEN_REFUSED_CLOSE, "the token is no longer accepted: the server's tokens file changed");
      }
    },
    async closeAll() {
      closing = true;
      const sockets = [...wss.clients];
      const closed = sockets.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once("close", () => resolve()))));
      for (const ws of sockets) ws.close(1001, "server shutting down");
      // A client that does not answer the close handshake is cut off.
      const timer = setTimeout(() => sockets.forEach((ws) => ws.terminate()), 1000);
      await Promise.all(closed);
      clearTimeout(timer);
      clearInterval(heartbeat);
      wss.close();
    },
  };
}

/** `text` cut to what a close frame's reason may hold (123 bytes of UTF-8). */
function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let cut = text.slice(0, 120);
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return `${cut}…`;
}
