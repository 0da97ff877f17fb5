// A deliberately minimal WebSocket client: it knows the three server frame types and the two delta
// operations and nothing else (no SDK, no shared reducer). If it renders a correct conversation,
// any client that follows the protocol can.
import WebSocket from "ws";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type MinimalFrame =
  | { type: "state"; state: Json; seq: number }
  | { type: "delta"; operations: { type: "set" | "append-text"; path: string[]; value: Json }[]; seq: number }
  | { type: "error"; message: string; code?: string; command?: number };

export type MinimalState = {
  status: string;
  error?: string;
  messages: {
    id: string;
    role: string;
    content: string;
    status: string;
    toolCalls?: { id: string; name: string; status: string; input?: Record<string, unknown>; output?: string }[];
  }[];
  [key: string]: unknown;
};

/** Whether the run under way holds a steer: the state's `steers` (beyond the core shape this client
 * knows) lists one "queued". */
export function steerQueued(state: MinimalState): boolean {
  return Array.isArray(state.steers) && state.steers.some((steer: { status?: unknown }) => steer.status === "queued");
}

function applyMinimal(state: Json, op: { type: string; path: string[]; value: Json }): Json {
  if (op.path.length === 0) return op.type === "set" ? op.value : (state as string) + (op.value as string);
  const root = structuredClone(state) as Record<string, Json>;
  let node: Record<string, Json> = root;
  for (const key of op.path.slice(0, -1)) node = node[key] as Record<string, Json>;
  const last = op.path[op.path.length - 1];
  node[last] = op.type === "set" ? op.value : ((node[last] as string | undefined) ?? "") + (op.value as string);
  return root;
}

export type ConnectOptions = {
  userId: string;
  sessionId: string;
  /** Default: `initial`'s seq, when given. */
  since?: number;
  token?: string;
  headers?: Record<string, string>;
  /** The state this client already holds (with its seq) when it reconnects with `since`. */
  initial?: { state: MinimalState; seq: number };
};

export class MinimalClient {
  state: MinimalState | undefined;
  seq = -1;
  readonly frames: MinimalFrame[] = [];
  readonly errors: Extract<MinimalFrame, { type: "error" }>[] = [];
  closed = false;
  /** The close frame's code, once closed. */
  closeCode: number | undefined;
  readonly #socket: WebSocket;
  readonly #waiters = new Set<() => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on("message", (data) => this.#receive(String(data)));
    socket.on("close", (code) => {
      this.closed = true;
      this.closeCode = code;
      this.#notify();
    });
  }

  /** Connects and resolves once the socket is open (a state frame follows unless `since` is current). */
  static connect(baseUrl: string, options: ConnectOptions): Promise<MinimalClient> {
    const url = new URL("/ws", baseUrl.replace(/^http/, "ws"));
    url.searchParams.set("userId", options.userId);
    url.searchParams.set("sessionId", options.sessionId);
    const since = options.since ?? options.initial?.seq;
    if (since !== undefined) url.searchParams.set("since", String(since));
    if (options.token) url.searchParams.set("token", options.token);
    const socket = new WebSocket(url, { headers: options.headers, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      const client = new MinimalClient(socket);
      if (options.initial) {
        client.state = structuredClone(options.initial.state);
        client.seq = options.initial.seq;
      }
      socket.once("open", () => resolve(client));
      socket.once("unexpected-response", (_req, res) => reject(new Error(`WebSocket refused: HTTP ${res.statusCode}`)));
      socket.once("error", reject);
    });
  }

  /** Sends a raw text frame (for testing bad input). */
  sendRaw(text: string): void {
    this.#socket.send(text);
  }

  send(...commands: unknown[]): void {
    this.#socket.send(JSON.stringify({ type: "commands", commands }));
  }

  /** Waits until `predicate` holds for this client (checked after every frame). */
  waitFor(predicate: (client: this) => boolean, timeoutMs = 15_000, what = "condition"): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate(this)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; state: ${JSON.stringify(this.state)?.slice(0, 2000)}`));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  waitForState(predicate: (state: MinimalState) => boolean, timeoutMs?: number, what?: string): Promise<void> {
    return this.waitFor((c) => c.state !== undefined && predicate(c.state), timeoutMs, what);
  }

  waitForErrors(count: number, timeoutMs?: number): Promise<void> {
    return this.waitFor((c) => c.errors.length >= count, timeoutMs, `${count} error frames`);
  }

  /** Drops the TCP connection without a closing handshake, as a network failure would. */
  kill(): void {
    this.#socket.terminate();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once("close", () => resolve());
      this.#socket.close();
    });
  }

  #receive(raw: string): void {
    const frame = JSON.parse(raw) as MinimalFrame;
    this.frames.push(frame);
    if (frame.type === "state") {
      this.state = frame.state as MinimalState;
      this.seq = frame.seq;
    } else if (frame.type === "delta") {
      let state = this.state as Json;
      for (const op of frame.operations) state = applyMinimal(state, op);
      this.state = state as MinimalState;
      this.seq = frame.seq;
    } else {
      this.errors.push(frame);
    }
    this.#notify();
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
