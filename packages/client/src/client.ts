// The client SDK: one connection to one session. It applies the server's snapshot and deltas to a
// local copy of the state with the same reducer the server uses, reconnects after a dropped
// connection with `since=<seq>` so that it receives exactly the missed deltas, and sends typed
// commands. Browser-safe: it uses only the standard WebSocket API.
import { applyOperations, leftCloseReason, OperationError, TOKEN_REFUSED_CLOSE } from "@harness/protocol/client-side";
import type { HarnessCommand, HarnessConfig, HarnessState, ServerMessage, SessionEndReason } from "@harness/protocol";
import { Listeners } from "./listeners.ts";
import { watchLiveness } from "./liveness.ts";
import { commandsFrame, Outbox } from "./outbox.ts";
import { idSaid, optionsProblem } from "./options.ts";
import { textFollower, watchRun, type RunOptions, type RunResult } from "./run.ts";
import { approvalAnswerer } from "./approvals.ts";
import { askWhyRefused, refusalSaid, type Refusal } from "./handshake-refusal.ts";
import { watchConfigure, type ConfigureResult } from "./configure.ts";
import type { Outcome, Watch } from "./watch.ts";
import type { ClientEvents, ClientOptions, ConnectionStatus, WebSocketLike } from "./types.ts";

export type { ClientEvents, ClientOptions, ConnectionStatus, ServerError, WebSocketFactory, WebSocketLike } from "./types.ts";

const OPEN = 1;
/** A connection that closes sooner than this after opening, before the session's state or a delta
 * arrived, counts as a failed attempt (a host that accepts and then drops it at once): the backoff
 * and `maxAttempts` apply. One that stayed open longer was a working connection: the next drop
 * starts the count again. */
const STABLE_MS = 2_000;
/** Close code of a connection whose session was deleted: reconnecting would only start a new one. */
export const SESSION_DELETED_CLOSE_CODE = 4404;
const DEFAULT_SILENCE_MS = 75_000;

export class HarnessClient {
  state: HarnessState | undefined;
  /** The seq of the last batch applied; sent as `since` on reconnect. */
  seq: number | undefined;
  connection: ConnectionStatus = "closed";

  readonly #options: ClientOptions;
  /** The session followed: the options' at first, another after switchSession(). */
  #sessionId: string;
  readonly #listeners = new Listeners<ClientEvents>();
  #socket: WebSocketLike | undefined;
  readonly #outbox = new Outbox();
  /** Reconnect attempts since the last open connection. */
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closedByUser = false;
  /** The connect() waiting for its first state: it fails if the socket closes before one came. */
  #connecting: { promise: Promise<HarnessState>; resolve(state: HarnessState): void; reject(error: Error): void } | undefined;
  /** waitFor() and run() calls under way: they fail, saying why, when the client closes for good
   * or switches session. */
  readonly #waiters = new Set<(why: string) => void>();
  /** What the current socket's error event said, for the message of a failed connect(). */
  #socketError: string | undefined;
  /** Stops watching the current socket for silence. */
  #unwatch: (() => void) | undefined;
  /** Sockets opened: an answer about one that came after another was opened, or after close(), is
   * not acted on. */
  #opened = 0;

  /** Throws, naming the option, for options no connection could be made with: a url that is not
   * http(s) or ws(s), or that carries a query; a userId or sessionId the server refuses (1 to 128
   * letters, digits, '.', '_' or '-'), or none; an empty token; reconnect delays or attempts out
   * of range. */
  constructor(options: ClientOptions) {
    const problem = optionsProblem(options);
    if (problem) throw new Error(problem);
    this.#options = options;
    this.#sessionId = options.sessionId;
  }

  /** The session the client follows. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** Opens the connection; resolves with the session's state once it has arrived. Rejects when
   * the connection closes before that (a wrong token, a bad URL, no server there, the session
   * deleted): the client is then closed and tries no more until connect() is called again. Once
   * connected, a dropped connection is reopened (see `reconnect`). Called while connecting, it
   * returns the same promise; while open, the state at once; while waiting to reconnect, it
   * connects now and asks for the whole state. */
  connect(): Promise<HarnessState> {
    if (this.#connecting) return this.#connecting.promise;
    if (this.#socket?.readyState === OPEN && this.state && this.connection === "open") return Promise.resolve(this.state);
    this.#closedByUser = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#attempt = 0;
    let resolve!: (state: HarnessState) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<HarnessState>((res, rej) => ((resolve = res), (reject = rej)));
    this.#connecting = { promise, resolve, reject };
    // A reconnect under way would ask with `since`, and the server sends nothing when nothing
    // changed: it is replaced by a socket that asks for the whole state.
    this.#dropSocket();
    this.#open(false);
    return promise;
  }

  /** Closes the connection for good (until connect()). Commands still waiting are dropped;
   * connect() and waitFor() calls under way fail. `left`: how the user left the session, told to
   * the server for when the session's conversation ends there (its SessionEnd hooks' reason). */
  close(options: { left?: SessionEndReason } = {}): void {
    this.#closedByUser = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#dropSocket(1000, options.left ? leftCloseReason(options.left) : "client closed");
    this.#outbox.drain();
    this.#closed("close() was called", "the client was closed before it connected");
  }

  /** Follows session `sessionId` from now on (of the same user, server and token), on a new
   * connection that asks for its whole state; the listeners stay. `state` and `seq` are cleared at
   * once, and what was meant for the other session ends: commands still waiting to go out are
   * dropped (and reported), waitFor() and connect() calls under way fail. Resolves and rejects as
   * connect() does; what is no session id the server takes is refused at once, and the client
   * stays as it was. */
  switchSession(sessionId: string): Promise<HarnessState> {
    const problem = idSaid("sessionId", sessionId);
    if (problem) return Promise.reject(new Error(`switchSession: ${problem}`));
    const reason = `the client switched to session ${sessionId}`;
    this.#sessionId = sessionId;
    this.state = undefined;
    this.seq = undefined;
    this.#dropSocket(1000, "switched session");
    const connecting = this.#connecting;
    this.#connecting = undefined;
    connecting?.reject(new Error(reason));
    this.#dropCommands(reason);
    for (const fail of [...this.#waiters]) fail(reason);
    return this.connect();
  }

  on<K extends keyof ClientEvents>(event: K, listener: ClientEvents[K]): () => void {
    return this.#listeners.on(event, listener);
  }

  /** Resolves with the state once `predicate` holds (checked now and after every change). Fails
   * after `timeoutMs` (when above 0), or when the client closes for good. Checked now: right after
   * submit() the state is still the one from before the prompt, so to wait for a run use run(). */
  waitFor(predicate: (state: HarnessState) => boolean, timeoutMs = 0): Promise<HarnessState> {
    if (this.state && predicate(this.state)) return Promise.resolve(this.state);
    return this.#watch({
      state: (state) => (predicate(state) ? { value: state } : undefined),
      closed: (why) => ({ error: new Error(`waitFor: ${why}`) }),
      timeoutMs,
      timedOut: () => ({ error: new Error(`waitFor timed out after ${timeoutMs} ms`) }),
    });
  }

  /** Submits `prompt` and resolves once the run it starts has ended, with its reply: what
   * `submit()` and a `waitFor()` cannot tell apart, since the state before the prompt arrives is
   * idle too. A run that fails or is cancelled resolves as well (failures are values): `status`
   * says how it ended, `state.error` why it failed. Rejects with a RunRefusedError (the server's
   * words and `code`) when the server refuses the prompt (`busy`: a run is under way, steer() or
   * wait; an empty prompt); with an Error after `timeoutMs` (when above 0; the run goes on), when
   * the client closes for good or switches session, and when the session no longer has the prompt
   * (a server killed before it stored it came back without the run). Tool calls that wait for approval keep
   * the run under way: `onApproval` is asked once about each of the run's (as the Agent SDK's
   * canUseTool is), or answer them yourself from `state.pendingApprovals`. A steer the run ended
   * without delivering is sent on as the next prompt: run() resolves once that run has ended too.
   * `onText` is given the replies' text as it streams, `onThinking` their thinking. */
  async run(prompt: string, options: RunOptions = {}): Promise<RunResult> {
    if (!this.state && this.connection !== "closed") await this.#connecting?.promise;
    this.submit(prompt);
    return this.waitForRun(prompt, options);
  }

  /** As run(), for the prompt that submit() sent just now, in the same turn (the state the run is
   * told from must be the one from before the prompt arrived): for a program that sends it itself.
   * Rejects at once on a closed client. */
  async waitForRun(prompt: string, options: RunOptions = {}): Promise<RunResult> {
    if (this.connection === "closed") throw new Error("run: the client is closed: call connect() before sending commands");
    const { timeoutMs = 0, onApproval, onText, onThinking, untilApproval } = options;
    const watch = watchRun(prompt, this.state ?? { status: "idle", messages: [] }, timeoutMs, untilApproval);
    const offs = [
      onThinking && this.on("state", textFollower(onThinking, watch.replies, "thinking")),
      onText && this.on("state", textFollower(onText, watch.replies)),
      onApproval && this.on("state", approvalAnswerer(onApproval, watch.replies, (command) => this.send(command))),
    ];
    try {
      return await this.#watch(watch);
    } finally {
      for (const off of offs) off?.();
    }
  }

  /** Sends commands in one frame. While the connection is being made or remade they wait, and go
   * out, in order, once it opens. Throws when the client is closed (call connect() first), when
   * the frame would break the server's limits (100 commands, 1 MiB), or when 1,000 commands
   * already wait. */
  send(...commands: HarnessCommand[]): void {
    if (commands.length === 0) return;
    if (this.connection === "closed") throw new Error("the client is closed: call connect() before sending commands");
    const frame = commandsFrame(commands);
    if (this.#socket?.readyState === OPEN && this.#outbox.size === 0) this.#socket.send(frame);
    else this.#outbox.push(frame, commands.length);
  }

  /** Starts a run with `prompt`, fire-and-forget (refused with `busy` while a run is under way):
   * run() waits for its end. */
  submit(prompt: string): void { this.send({ type: "submit", prompt }); }
  /** Stops the run under way: its reply ends "cancelled". */
  cancel(): void { this.send({ type: "cancel" }); }
  /** Adds `message` to the run under way, read by the model before its next call (`not_delivered`
   * when the run is cancelled or fails first); with no run under way, it starts one. Until the
   * model reads it, `state.steers` lists it ("sending", then "queued" once the run holds it). */
  steer(message: string): void { this.send({ type: "steer", message }); }
  /** Answers a call of `state.pendingApprovals` (see run()'s onApproval). */
  approve(toolCallId: string): void { this.send({ type: "approve", toolCallId }); }
  /** Refuses a call of `state.pendingApprovals`; the model is told `reason`. */
  deny(toolCallId: string, reason?: string): void { this.send({ type: "deny", toolCallId, ...(reason ? { reason } : {}) }); }
  /** In this session, empty, goes on with session `sessionId`'s conversation and settings (of the
   * same user; its files stay in its workspace: the sessions API's fork copies them), with `prompt`. */
  resume(prompt: string, sessionId: string): void { this.send({ type: "resume", prompt, sessionId }); }
  /** Sends the settings (for the next run, and the run under way from its next model call); the
   * answer never rejects, so it may be left unread: `{ok: true, config}` once the session holds
   * them (at once when it does already), `{ok: false, error, code}` when the server refuses them
   * (a model the server cannot run, or one the settings' availableModels leave out), the client
   * closes or switches session. Throws, as send() does, on a closed client. */
  configure(config: HarnessConfig): Promise<ConfigureResult> {
    this.send({ type: "configure", config });
    const watch = watchConfigure(config);
    const now = this.state && watch.state(this.state);
    return now && "value" in now ? Promise.resolve(now.value) : this.#watch(watch);
  }
  /** Goes back to before user message `messageId`: drops it and what follows, and puts the files
   * back as they were then; `dryRun` only sets `state.rewindPreview` to what it would restore. */
  rewind(messageId: string, dryRun?: boolean): void { this.send({ type: "rewind", messageId, ...(dryRun ? { dryRun } : {}) }); }
  /** Stops the sub-agent of running Task call `toolCallId` alone: the call's result says it was
   * interrupted, and the run goes on. */
  stopAgent(toolCallId: string): void { this.send({ type: "stop-agent", toolCallId }); }
  /** Moves running Bash call `toolCallId` (without it, every one running) to the background: its
   * command goes on as a background shell, and the call answers now with the shell's id. */
  background(toolCallId?: string): void { this.send({ type: "background", ...(toolCallId !== undefined && { toolCallId }) }); }
  /** Stops background shell `shellId` (one of `state.shells`, running), during a run or between
   * runs; its status in `state.shells` turns "killed". */
  killShell(shellId: string): void { this.send({ type: "kill-shell", shellId }); }

  /** Settles with what `watch` makes of the states and error events that come next, of the
   * client closing for good or switching session (`closed`), and of `timeoutMs` passing. */
  #watch<T>(watch: Watch<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const finish = (outcome: Outcome<T> | undefined) => {
        if (!outcome) return;
        clearTimeout(timer);
        for (const off of offs) off();
        this.#waiters.delete(fail);
        if ("error" in outcome) reject(outcome.error);
        else resolve(outcome.value);
      };
      const fail = (why: string) => finish(watch.closed(why));
      const timeoutMs = watch.timeoutMs ?? 0;
      const timer = timeoutMs > 0 && watch.timedOut ? setTimeout(() => finish(watch.timedOut?.()), timeoutMs) : undefined;
      const offs = [this.on("state", (state) => finish(watch.state(state))), ...(watch.error ? [this.on("error", (error) => finish(watch.error?.(error)))] : [])];
      this.#waiters.add(fail);
    });
  }

  /** `resume`: ask only for what was missed since the last seq applied (a reconnect). */
  #open(resume = true): void {
    const { userId, token } = this.#options;
    const sessionId = this.#sessionId;
    this.#setConnection(resume ? "reconnecting" : "connecting");
    this.#socketError = undefined;
    let target: URL | undefined;
    let socket: WebSocketLike;
    try {
      target = socketUrl(this.#options.url);
      target.searchParams.set("userId", userId);
      target.searchParams.set("sessionId", sessionId);
      if (token) target.searchParams.set("token", token);
      if (resume && this.seq !== undefined) target.searchParams.set("since", String(this.seq));
      const factory = this.#options.webSocket ?? ((u: string) => new WebSocket(u) as unknown as WebSocketLike);
      socket = factory(target.toString());
    } catch (error) {
      // A URL that does not parse, or one the WebSocket constructor refuses.
      const where = target ? redacted(target) : JSON.stringify(this.#options.url);
      const message = `cannot open ${where}: ${error instanceof Error ? error.message : String(error)}`;
      if (resume && !this.#connecting) this.#reconnectFailed(message);
      else this.#closed(message);
      return;
    }
    const url = target;
    const attempt = ++this.#opened;
    this.#socket = socket;
    let opened = false;
    let openedAt = 0;
    // A silent connection is dropped at once: its close handshake would wait on the dead peer.
    const liveness = watchLiveness(socket, this.#options.silenceMs ?? DEFAULT_SILENCE_MS, (why) => {
      if (this.#socket !== socket) return;
      lost({ code: 1006, reason: why }, true);
      socket.close();
    });
    this.#unwatch = liveness.stop;
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      liveness.heard();
      opened = true;
      openedAt = Date.now();
      for (const frame of this.#outbox.drain()) socket.send(frame);
      this.#setConnection("open");
    };
    socket.onmessage = (event) => {
      if (this.#socket !== socket) return;
      liveness.heard();
      if (this.#receive(String(event.data))) this.#attempt = 0;
    };
    /** `silent`: the client gave up on a socket that stayed silent, which never closed. */
    const lost = (event: { code: number; reason: string }, silent = false) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      liveness.stop();
      if (opened || silent) return ended(event, silent);
      const said = refusalSaid(this.#socketError);
      const fetch = this.#options.fetch ?? (this.#options.webSocket ? undefined : globalThis.fetch);
      if (said || !fetch) return ended(event, false, said);
      void askWhyRefused(fetch, this.#options.url, userId, token).then((refused) => {
        if (this.#opened === attempt && !this.#closedByUser) ended(event, false, refused);
      });
    };
    /** Goes on from a socket that closed; `refused`: the server's refusal of its handshake. */
    const ended = (event: { code: number; reason: string }, silent: boolean, refused?: Refusal) => {
      const why = [`code ${event.code}`, event.reason, this.#socketError].filter(Boolean).join(", ");
      const failure = opened
        ? `the connection closed before the session's state arrived (${why})`
        : refused
          ? refused.message
          : silent
            ? `the WebSocket handshake got no answer (${why})`
            : `the WebSocket handshake failed (${why}): nothing answers there, or the server refused it (a missing or wrong token, a bad userId or sessionId, or this page's origin not among the server's HARNESS_ALLOWED_ORIGINS)`;
      if (event.code === TOKEN_REFUSED_CLOSE) {
        const message = `the server closed the connection: ${event.reason || "the token is no longer accepted"}`;
        this.#listeners.emit("error", { message: `${message}; gave up: retrying with this token cannot change that`, code: "token_refused" });
        return this.#closed(message);
      }
      if (this.#connecting) return this.#closed(`could not connect to ${redacted(url)}: ${failure}`);
      if (refused?.final) {
        const message = `could not reconnect to ${redacted(url)}: ${failure}`;
        this.#listeners.emit("error", { message: `${message}; gave up: retrying cannot change that`, code: "reconnect_failed" });
        return this.#closed(message);
      }
      if (event.code === SESSION_DELETED_CLOSE_CODE) return this.#closed("the session was deleted");
      if (!opened) return this.#reconnectFailed(`could not reconnect to ${redacted(url)}: ${failure}`);
      if (this.#attempt > 0 && Date.now() - openedAt < STABLE_MS) {
        return this.#reconnectFailed(`could not reconnect to ${redacted(url)}: the connection closed as soon as it opened (${why})`);
      }
      this.#attempt = 0;
      this.#scheduleReconnect();
    };
    socket.onclose = (event) => lost(event);
    socket.onerror = (event) => {
      // A close event always follows; reconnecting is decided there. The `ws` package says why a
      // handshake failed here, Node's own WebSocket and browsers' do not (see handshake-refusal.ts).
      if (this.#socket !== socket) return;
      const detail = event as { message?: unknown; error?: { message?: unknown } } | undefined;
      const message = detail?.message ?? detail?.error?.message;
      if (typeof message === "string" && message) this.#socketError = message;
    };
  }

  /** Applies a frame; true when it was the session's state or a delta (the connection works). */
  #receive(raw: string): boolean {
    let frame: ServerMessage;
    try {
      frame = JSON.parse(raw) as ServerMessage;
    } catch {
      this.#listeners.emit("error", { message: "server sent a frame that is not JSON", code: "bad_json" });
      return false;
    }
    if (frame.type === "state") {
      this.state = frame.state;
      this.seq = frame.seq;
      const connecting = this.#connecting;
      this.#connecting = undefined;
      connecting?.resolve(frame.state);
      this.#listeners.emit("state", frame.state);
      this.#listeners.emit("snapshot", frame.state, frame.seq);
      return true;
    }
    if (frame.type === "delta") {
      // Seqs only grow (a crash may skip some); one already applied is not applied twice.
      if (!this.state || (this.seq !== undefined && frame.seq <= this.seq)) return true;
      try {
        this.state = applyOperations(this.state, frame.operations);
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        // Our copy no longer matches the server's: drop it and ask for a fresh snapshot.
        this.seq = undefined;
        this.#socket?.close(4000, "resync");
        return false;
      }
      this.seq = frame.seq;
      this.#listeners.emit("state", this.state);
      this.#listeners.emit("delta", frame.operations, frame.seq);
      return true;
    }
    if (frame.type === "error") {
      const { message, code, command } = frame;
      this.#listeners.emit("error", { message, ...(code ? { code } : {}), ...(command !== undefined ? { command } : {}) });
    }
    return false;
  }

  #reconnectPolicy(): { minDelayMs: number; maxDelayMs: number; maxAttempts: number } | undefined {
    const policy = this.#options.reconnect ?? true;
    if (this.#closedByUser || policy === false) return undefined;
    const { minDelayMs = 100, maxDelayMs = 5_000, maxAttempts = Infinity } = policy === true ? {} : policy;
    return { minDelayMs, maxDelayMs, maxAttempts };
  }

  /** A reconnect attempt's handshake failed: says so, then tries again or gives up. */
  #reconnectFailed(message: string): void {
    const policy = this.#reconnectPolicy();
    if (policy && this.#attempt >= policy.maxAttempts) {
      this.#listeners.emit("error", { message: `${message}; gave up after ${this.#attempt} attempts`, code: "reconnect_failed" });
      return this.#closed(message);
    }
    this.#listeners.emit("error", { message: `${message}; trying again`, code: "reconnect_failed" });
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const policy = this.#reconnectPolicy();
    if (!policy) return this.#closed("the connection closed");
    const delay = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** this.#attempt) * (0.5 + Math.random() / 2);
    this.#attempt++;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#open();
    }, delay);
    this.#setConnection("reconnecting");
  }

  /** The client is closed for good: a connect() under way fails with `connectError`, a waitFor()
   * with `reason`. */
  #closed(reason: string, connectError = reason): void {
    const connecting = this.#connecting;
    this.#connecting = undefined;
    connecting?.reject(new Error(connectError));
    // Commands left waiting would otherwise go out whenever connect() is next called, perhaps much
    // later and into another state of the session.
    this.#dropCommands(`the client closed (${reason})`);
    for (const fail of [...this.#waiters]) fail(`the client closed: ${reason}`);
    this.#setConnection("closed");
  }

  /** Drops the commands waiting to go out, and says so (`why` they were not sent). */
  #dropCommands(why: string): void {
    const dropped = this.#outbox.size;
    this.#outbox.drain();
    if (dropped > 0) this.#listeners.emit("error", { message: `${dropped} command${dropped === 1 ? " was" : "s were"} not sent: ${why}`, code: "commands_dropped" });
  }

  #dropSocket(code?: number, reason?: string): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
    socket?.close(code, reason);
  }

  #setConnection(status: ConnectionStatus): void {
    if (this.connection === status) return;
    this.connection = status;
    this.#listeners.emit("connection", status);
  }
}

/** The server's WebSocket URL under the base URL `base` (its path kept, without a query). */
function socketUrl(base: string): URL {
  const url = new URL(base);
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/ws`;
  url.search = "";
  url.hash = "";
  return url;
}

/** The URL without its token, fit for an error message. */
function redacted(url: URL): string {
  return url.toString().replace(/([?&]token=)[^&]*/, "$1…");
}

export function createHarnessClient(options: ClientOptions): HarnessClient {
  return new HarnessClient(options);
}
