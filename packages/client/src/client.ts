// The client SDK: one connection to one session. It applies the server's snapshot and deltas to a
// local copy of the state with the same reducer the server uses, reconnects after a dropped
// connection with `since=<seq>` so that it receives exactly the missed deltas, and sends typed
// commands. Browser-safe: it uses only the standard WebSocket API.
import {
  applyOperations,
  OperationError,
  type HarnessCommand,
  type HarnessConfig,
  type HarnessState,
  type ServerMessage,
} from "@harness/protocol";

export type WebSocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
};
export type WebSocketFactory = (url: string) => WebSocketLike;

export type ClientOptions = {
  /** Base URL of the server, e.g. http://127.0.0.1:7700 (ws:// and wss:// work too). */
  url: string;
  userId: string;
  sessionId: string;
  /** Sent as ?token= (browsers cannot set headers on a WebSocket). */
  token?: string;
  /** Defaults to the global WebSocket. */
  webSocket?: WebSocketFactory;
  /** Reconnect after an unexpected close (default true), with exponential backoff. */
  reconnect?: boolean | { minDelayMs?: number; maxDelayMs?: number };
};

export type ServerError = { message: string; code?: string; command?: number };
export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";
export type ClientEvents = {
  state: (state: HarnessState) => void;
  error: (error: ServerError) => void;
  connection: (status: ConnectionStatus) => void;
};

const OPEN = 1;
/** Close code of a connection whose session was deleted: reconnecting would only start a new one. */
export const SESSION_DELETED_CLOSE_CODE = 4404;

export class HarnessClient {
  state: HarnessState | undefined;
  /** The seq of the last batch applied; sent as `since` on reconnect. */
  seq: number | undefined;
  connection: ConnectionStatus = "closed";

  readonly #options: ClientOptions;
  readonly #listeners: { [K in keyof ClientEvents]: Set<ClientEvents[K]> } = {
    state: new Set(),
    error: new Set(),
    connection: new Set(),
  };
  #socket: WebSocketLike | undefined;
  #outbox: HarnessCommand[] = [];
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closedByUser = false;
  /** The connect() waiting for its first state: it fails if the socket closes before one came. */
  #connecting: { promise: Promise<HarnessState>; resolve(state: HarnessState): void; reject(error: Error): void } | undefined;
  /** What the current socket's error event said, for the message of a failed connect(). */
  #socketError: string | undefined;

  constructor(options: ClientOptions) {
    this.#options = options;
  }

  /** Opens the connection; resolves with the session's state once it has arrived. Rejects when
   * the connection closes before that (a wrong token, a bad URL, no server there, the session
   * deleted): the client is then closed and tries no more until connect() is called again. Once
   * connected, a dropped connection is reopened (see `reconnect`). Calling it while connecting or
   * connected returns the same state. */
  connect(): Promise<HarnessState> {
    if (this.#connecting) return this.#connecting.promise;
    if (this.#socket && this.state && this.connection === "open") return Promise.resolve(this.state);
    this.#closedByUser = false;
    clearTimeout(this.#timer);
    let resolve!: (state: HarnessState) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<HarnessState>((res, rej) => ((resolve = res), (reject = rej)));
    this.#connecting = { promise, resolve, reject };
    // A socket already opening (a reconnect under way) settles this call with its first state. A
    // new one asks for the whole state: with `since` the server sends nothing when nothing changed,
    // and connect() waits for a state.
    if (!this.#socket) this.#open(false);
    return promise;
  }

  close(): void {
    this.#closedByUser = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close(1000, "client closed");
    this.#failConnect("the client was closed before it connected");
    this.#setConnection("closed");
  }

  on<K extends keyof ClientEvents>(event: K, listener: ClientEvents[K]): () => void {
    this.#listeners[event].add(listener);
    return () => this.#listeners[event].delete(listener);
  }

  /** Resolves with the state once `predicate` holds (checked now and after every change). */
  waitFor(predicate: (state: HarnessState) => boolean, timeoutMs = 0): Promise<HarnessState> {
    if (this.state && predicate(this.state)) return Promise.resolve(this.state);
    return new Promise((resolve, reject) => {
      const timer = timeoutMs > 0 ? setTimeout(() => {
        off();
        reject(new Error(`waitFor timed out after ${timeoutMs} ms`));
      }, timeoutMs) : undefined;
      const off = this.on("state", (state) => {
        if (!predicate(state)) return;
        clearTimeout(timer);
        off();
        resolve(state);
      });
    });
  }

  /** Sends commands in one frame; while disconnected they wait and go out on reconnect. */
  send(...commands: HarnessCommand[]): void {
    if (this.#socket?.readyState === OPEN && this.#outbox.length === 0) {
      this.#socket.send(JSON.stringify({ type: "commands", commands }));
    } else {
      this.#outbox.push(...commands);
    }
  }

  submit(prompt: string): void { this.send({ type: "submit", prompt }); }
  cancel(): void { this.send({ type: "cancel" }); }
  steer(message: string): void { this.send({ type: "steer", message }); }
  approve(toolCallId: string): void { this.send({ type: "approve", toolCallId }); }
  deny(toolCallId: string, reason?: string): void { this.send({ type: "deny", toolCallId, ...(reason ? { reason } : {}) }); }
  resume(prompt: string, sessionId: string): void { this.send({ type: "resume", prompt, sessionId }); }
  configure(config: HarnessConfig): void { this.send({ type: "configure", config }); }
  rewind(messageId: string, dryRun?: boolean): void { this.send({ type: "rewind", messageId, ...(dryRun ? { dryRun } : {}) }); }

  /** `resume`: ask only for what was missed since the last seq applied (a reconnect). */
  #open(resume = true): void {
    const { url, userId, sessionId, token } = this.#options;
    const target = new URL("/ws", url.replace(/^http/, "ws"));
    target.searchParams.set("userId", userId);
    target.searchParams.set("sessionId", sessionId);
    if (token) target.searchParams.set("token", token);
    if (resume && this.seq !== undefined) target.searchParams.set("since", String(this.seq));
    const factory = this.#options.webSocket ?? ((u: string) => new WebSocket(u) as unknown as WebSocketLike);
    this.#setConnection(this.#attempt === 0 ? "connecting" : "reconnecting");
    this.#socketError = undefined;
    let socket: WebSocketLike;
    try {
      socket = factory(target.toString());
    } catch (error) {
      // A URL the WebSocket constructor refuses.
      this.#failConnect(`cannot open ${redacted(target)}: ${error instanceof Error ? error.message : String(error)}`);
      this.#setConnection("closed");
      return;
    }
    this.#socket = socket;
    let opened = false;
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      opened = true;
      this.#attempt = 0;
      this.#setConnection("open");
      if (this.#outbox.length) {
        const commands = this.#outbox;
        this.#outbox = [];
        socket.send(JSON.stringify({ type: "commands", commands }));
      }
    };
    socket.onmessage = (event) => {
      if (this.#socket === socket) this.#receive(String(event.data));
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      if (this.#connecting) {
        const why = [`code ${event.code}`, event.reason, this.#socketError].filter(Boolean).join(", ");
        // Neither browsers nor Node tell a refused handshake's HTTP status; the server refuses one
        // for a missing or wrong token and for bad ids, with 401 and 400.
        const what = opened
          ? `the connection closed before the session's state arrived (${why})`
          : `the WebSocket handshake failed (${why}): nothing answers there, or the server refused it (a missing or wrong token, or a bad userId or sessionId)`;
        this.#failConnect(`could not connect to ${redacted(target)}: ${what}`);
        this.#setConnection("closed");
        return;
      }
      if (event.code === SESSION_DELETED_CLOSE_CODE) {
        this.#setConnection("closed");
        return;
      }
      this.#scheduleReconnect();
    };
    socket.onerror = (event) => {
      // A close event always follows; reconnecting is decided there. Node's WebSocket says why a
      // handshake failed here (a browser's never does).
      if (this.#socket !== socket) return;
      const detail = event as { message?: unknown; error?: { message?: unknown } } | undefined;
      const message = detail?.message ?? detail?.error?.message;
      if (typeof message === "string" && message) this.#socketError = message;
    };
  }

  #receive(raw: string): void {
    let frame: ServerMessage;
    try {
      frame = JSON.parse(raw) as ServerMessage;
    } catch {
      this.#emit("error", { message: "server sent a frame that is not JSON", code: "bad_json" });
      return;
    }
    if (frame.type === "state") {
      this.state = frame.state;
      this.seq = frame.seq;
      const connecting = this.#connecting;
      this.#connecting = undefined;
      this.#emit("state", frame.state);
      connecting?.resolve(frame.state);
    } else if (frame.type === "delta") {
      if (!this.state) return;
      try {
        this.state = applyOperations(this.state, frame.operations);
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        // Our copy no longer matches the server's: drop it and ask for a fresh snapshot.
        this.seq = undefined;
        this.#socket?.close(4000, "resync");
        return;
      }
      this.seq = frame.seq;
      this.#emit("state", this.state);
    } else if (frame.type === "error") {
      const { message, code, command } = frame;
      this.#emit("error", { message, ...(code ? { code } : {}), ...(command !== undefined ? { command } : {}) });
    }
  }

  #scheduleReconnect(): void {
    const policy = this.#options.reconnect ?? true;
    if (this.#closedByUser || policy === false) {
      this.#setConnection("closed");
      return;
    }
    const { minDelayMs = 100, maxDelayMs = 5_000 } = policy === true ? {} : policy;
    const delay = Math.min(maxDelayMs, minDelayMs * 2 ** this.#attempt) * (0.5 + Math.random() / 2);
    this.#attempt++;
    this.#setConnection("reconnecting");
    this.#timer = setTimeout(() => this.#open(), delay);
  }

  #failConnect(message: string): void {
    const connecting = this.#connecting;
    this.#connecting = undefined;
    connecting?.reject(new Error(message));
  }

  #setConnection(status: ConnectionStatus): void {
    if (this.connection === status) return;
    this.connection = status;
    this.#emit("connection", status);
  }

  #emit<K extends keyof ClientEvents>(event: K, ...args: Parameters<ClientEvents[K]>): void {
    for (const listener of this.#listeners[event]) (listener as (...a: Parameters<ClientEvents[K]>) => void)(...args);
  }
}

/** The URL without its token, fit for an error message. */
function redacted(url: URL): string {
  return url.toString().replace(/([?&]token=)[^&]*/, "$1…");
}

export function createHarnessClient(options: ClientOptions): HarnessClient {
  return new HarnessClient(options);
}
