// The client's options, events and the WebSocket it needs: what a program that uses the client
// names in its own types.
import type { DeltaOperation, HarnessState } from "@harness/protocol";
import type { PingEmitter } from "./liveness.ts";

export type WebSocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
} & PingEmitter;
export type WebSocketFactory = (url: string) => WebSocketLike;

export type ClientOptions = {
  /** Base URL of the server, e.g. http://127.0.0.1:7700 or https://example.com/harness (ws:// and
   * wss:// work too); the WebSocket is at its path plus /ws. */
  url: string;
  /** Who the session belongs to: 1 to 128 letters, digits, '.', '_' or '-'. Not a credential: the
   * server keeps users' sessions apart, but the token (one for all) is what it checks. */
  userId: string;
  /** The session to follow, of the same alphabet; one that does not exist yet starts empty. */
  sessionId: string;
  /** The server's HARNESS_TOKEN, sent as ?token= (browsers cannot set headers on a WebSocket). */
  token?: string;
  /** Defaults to the global WebSocket. */
  webSocket?: WebSocketFactory;
  /** For asking the server's GET /health why a handshake failed (a refused token, or a server that
   * is down), which a WebSocket cannot tell: defaults to the global fetch, and is used only when
   * the client opens its own WebSockets or it is given (a factory's sockets may go elsewhere). */
  fetch?: typeof globalThis.fetch;
  /** Reconnect after an unexpected close (default true), with exponential backoff between
   * `minDelayMs` (100) and `maxDelayMs` (5,000), at most `maxAttempts` times in a row (no limit). */
  reconnect?: boolean | { minDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /** A connection on which nothing arrived, neither a frame nor one of the server's pings, for this
   * long (default 75,000 ms: a little over two of the server's 30 s pings) is taken for dead: it is
   * dropped and reconnected as after a close. Pings can be seen on Node's own WebSocket and on the
   * `ws` package's; where they cannot (browsers), an open connection is checked instead when the
   * page is shown again after this long without a frame, and when the network comes back (a
   * handshake under way is left to finish). 0 turns the check off. Below the server's ping
   * interval (30 s) an idle connection looks dead and is reconnected over and over. */
  silenceMs?: number;
};

/** An `error` frame of the server, or the client's own trouble. The server's codes: `bad_command`
 * (a command's field is wrong: the message names it), `unknown_command`, `bad_frame`, `bad_json`,
 * `frame_too_large`, `busy` (a submit or resume while a run is under way), `not_found` (no such
 * tool call waiting, or message), `not_running` (a cancel with no run), `not_empty` (a resume in a
 * session that has messages), `not_delivered` (a steer the run ended without passing on),
 * `runner_error`, `not_stored` (the store takes no writes: the session goes on in memory),
 * `session_deleted`, `internal`; `command` is the command's index in its frame. The client's own:
 * `bad_json` (a frame it could not read), `reconnect_failed` (an attempt to reconnect failed; the
 * message says whether it gives up), `token_refused` (the server closed the connection because it
 * no longer accepts the client's token: the client is closed, as retrying cannot change that) and
 * `commands_dropped` (the client closed for good with
 * commands still waiting to go out: they were not sent, and will not be). */
export type ServerError = { message: string; code?: string; command?: number };
export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";
export type ClientEvents = {
  /** The state after a snapshot or a delta was applied: a new object each time, never changed
   * afterwards, sharing what did not change with the one before (a UI can compare by reference, as
   * React's memo and useSyncExternalStore do). */
  state: (state: HarnessState) => void;
  /** A snapshot just replaced the state (after `state` listeners ran): the first one, and any a
   * reconnect brings instead of the missed deltas. A view that updates in place from `delta`
   * starts again from this state. */
  snapshot: (state: HarnessState, seq: number) => void;
  /** A delta just applied (after `state` listeners ran), for views that update in place. */
  delta: (operations: DeltaOperation[], seq: number) => void;
  error: (error: ServerError) => void;
  connection: (status: ConnectionStatus) => void;
};
