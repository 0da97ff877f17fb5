// HarnessSession: the single source of truth of one conversation. It holds the state, its seq, a
// bounded log of recent batches, the model transcript and the connected clients; commands come in
// as client frames, runner events come in through the RunnerPort, and every change goes out as one
// numbered delta batch to every client and to the store.
import {
  applyOperations,
  emptyState,
  ErrorCodes,
  parseClientFrame,
  type DeltaOperation,
  type FrameError,
  type HarnessCommand,
  type HarnessMessage,
  type HarnessState,
  type JSONValue,
  type RunnerEvent,
  type RunnerQuery,
  type TranscriptMessage,
} from "@harness/protocol";
import { createBatchLog, type BatchLog } from "./batch-log.ts";
import { createPersister, type Persister } from "./persister.ts";
import { interruptionOps, isRunActive, lastInterruptedTurn, withSynthesizedTurn } from "./run-outcome.ts";
import type { LoadedSession, SessionSnapshot, SessionStore, StoredBatch } from "./store.ts";
import { endRunOps, findMessage, translateEvent, type RunCursor } from "./translate.ts";
import { deltaFrame, errorFrame, stateFrame } from "./wire-frames.ts";

/** A connected client. `send` must not block; a host drops or closes clients that fall behind. */
export type Connection = { send(frame: string): void };

/** How a session reaches a runner. Aborting `signal` cancels the run (it closes the SSE request). */
export type RunnerPort = { query(body: RunnerQuery, opts: { signal: AbortSignal }): AsyncIterable<RunnerEvent> };

/** Error code for `cancel` when no run is in progress. */
export const NOT_RUNNING = "not_running";

/** How far seq jumps after a host died: further than any number of batches that can have been
 * sent to clients but not stored, so no seq a client saw is ever reused for a different batch
 * (a client that reconnects with such a seq gets a state frame). */
export const SEQ_JUMP_AFTER_CRASH = 1_000_000;

export type SessionOptions = {
  store: SessionStore;
  runner: RunnerPort;
  /** Batches kept in memory for replay to reconnecting clients (default 1000). */
  logCapacity?: number;
  /** A snapshot is stored after this many batches (default 500), and whenever a run ends. */
  snapshotEvery?: number;
  /** Delay between the first unsaved batch and its write (default 5 ms). */
  flushDelayMs?: number;
  /** Runs `fn` after the current macrotask; staged runner events are committed then as one batch. */
  defer?: (fn: () => void) => void;
  /** Failures no client caused, such as a store write that threw (default console.error). */
  onError?: (error: unknown, context: string) => void;
  /** Called each time a run ends (completed, failed, cancelled or interrupted). */
  onSettled?: () => void;
  newId?: () => string;
};

type ActiveRun = { controller: AbortController; cursor: RunCursor; prompt: string };
type TerminalEvent = Extract<RunnerEvent, { type: "run.completed" | "run.error" }>;

const unsupported: Record<string, true> = { steer: true, approve: true, deny: true, resume: true, configure: true, rewind: true };

function defaultDefer(): (fn: () => void) => void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  return immediate ? (fn) => void immediate(fn) : (fn) => void setTimeout(fn, 0);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Loads the session from its store (or starts an empty one) and returns it ready for clients. */
export async function openSession(options: SessionOptions): Promise<HarnessSession> {
  return new HarnessSession(options, await options.store.load());
}

export class HarnessSession {
  #state: HarnessState;
  #seq: number;
  #transcript: TranscriptMessage[];
  readonly #log: BatchLog;
  readonly #connections = new Set<Connection>();
  readonly #options: SessionOptions;
  readonly #persister: Persister;
  readonly #defer: (fn: () => void) => void;
  readonly #newId: () => string;
  #staged: DeltaOperation[] = [];
  #commitScheduled = false;
  #run: ActiveRun | undefined;
  #stateFrameCache: { seq: number; frame: string } | undefined;

  constructor(options: SessionOptions, loaded: LoadedSession | undefined) {
    this.#options = options;
    this.#defer = options.defer ?? defaultDefer();
    this.#newId = options.newId ?? (() => crypto.randomUUID());
    this.#log = createBatchLog(options.logCapacity ?? 1000);
    this.#state = loaded?.snapshot.state ?? emptyState();
    this.#seq = loaded?.snapshot.seq ?? 0;
    this.#transcript = loaded?.snapshot.transcript ?? [];
    for (const batch of loaded?.batches ?? []) {
      if (batch.seq !== this.#seq + 1) break;
      try {
        this.#state = applyOperations(this.#state, JSON.parse(batch.operations) as DeltaOperation[]);
      } catch (error) {
        this.#report(error, `restoring batch ${batch.seq}`);
        break;
      }
      this.#seq = batch.seq;
      this.#log.push(batch.seq, deltaFrame(batch.operations, batch.seq));
    }
    const crashed = loaded !== undefined && !loaded.clean;
    if (crashed) {
      // Batches from before the jump cannot be replayed across it.
      this.#seq += SEQ_JUMP_AFTER_CRASH;
      this.#log.clear();
    }
    this.#persister = createPersister({
      store: options.store,
      snapshot: () => this.#snapshot(),
      snapshotSeq: loaded ? loaded.snapshot.seq : -1,
      snapshotEvery: options.snapshotEvery ?? 500,
      flushDelayMs: options.flushDelayMs ?? 5,
      onError: (error) => this.#report(error, "storing the session"),
    });
    if (crashed) this.#persister.snapshotSoon();
    if (isRunActive(this.#state)) this.#interrupt();
  }

  /** The state as of `seq`; both are final for every batch committed so far. */
  snapshot(): { state: HarnessState; seq: number } {
    this.#commitStaged();
    return { state: this.#state, seq: this.#seq };
  }

  get transcript(): readonly TranscriptMessage[] {
    return this.#transcript;
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.#run !== undefined;
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Adds a client. With `since` (the last seq it holds) it gets exactly the batches it missed, or a
   * state frame when they are no longer kept; without, a state frame. */
  connect(conn: Connection, since?: number): void {
    this.#commitStaged();
    this.#connections.add(conn);
    if (since === this.#seq) return;
    if (since !== undefined && Number.isInteger(since) && since >= 0 && since < this.#seq) {
      const frames = this.#log.after(since) ?? this.#framesFromStore(since);
      if (frames) {
        for (const frame of frames) conn.send(frame);
        return;
      }
    }
    conn.send(this.#stateFrame());
  }

  disconnect(conn: Connection): void {
    this.#connections.delete(conn);
  }

  /** Handles one client frame: error frames go to `conn` only, valid commands run in order. */
  receive(conn: Connection, raw: string): void {
    const parsed = parseClientFrame(raw);
    const steps: ({ index: number; error: FrameError } | { index: number; command: HarnessCommand })[] = [
      ...parsed.errors.map((error) => ({ index: error.command ?? -1, error })),
      ...parsed.commands,
    ];
    if (parsed.errors.length && parsed.commands.length) steps.sort((a, b) => a.index - b.index);
    for (const step of steps) {
      if ("error" in step) {
        conn.send(errorFrame(step.error.message, step.error.code, step.error.command));
        continue;
      }
      try {
        this.#execute(conn, step.index, step.command);
      } catch (error) {
        this.#report(error, `command ${step.command.type}`);
        conn.send(errorFrame(`${step.command.type} failed: ${describe(error)}`, ErrorCodes.internal, step.index));
      }
    }
  }

  /** Applies `operations` as one batch: the next seq, the log, the store and every client. */
  commit(operations: DeltaOperation[]): number {
    this.#commitStaged();
    this.#state = applyOperations(this.#state, operations);
    return this.#record(operations);
  }

  /** Stores everything committed so far, with a snapshot. */
  flush(): Promise<void> {
    return this.#persister.flush();
  }

  /** Ends the session in this process: a run in progress is written down as interrupted, everything
   * is stored, and clients are forgotten (the host closes their sockets). */
  async close(): Promise<void> {
    if (this.#run) this.#interrupt();
    await this.#persister.flush(true);
    this.#persister.stop();
    this.#connections.clear();
  }

  #execute(conn: Connection, index: number, command: HarnessCommand): void {
    switch (command.type) {
      case "submit":
        return this.#submit(conn, index, command.prompt);
      case "cancel":
        return this.#cancel(conn, index);
      default:
        if (unsupported[command.type]) conn.send(errorFrame(`"${command.type}" is not supported yet`, ErrorCodes.unsupported, index));
    }
  }

  #submit(conn: Connection, index: number, prompt: string): void {
    if (this.#run || isRunActive(this.#state)) {
      conn.send(errorFrame("a run is already in progress; cancel it or wait for it to finish", ErrorCodes.busy, index));
      return;
    }
    const at = this.#state.messages.length;
    const user: HarnessMessage = { id: this.#newId(), role: "user", content: prompt, status: "complete" };
    const assistant: HarnessMessage = { id: this.#newId(), role: "assistant", content: "", status: "running" };
    const ops: DeltaOperation[] = [
      { type: "set", path: ["messages", String(at)], value: user as JSONValue },
      { type: "set", path: ["messages", String(at + 1)], value: assistant as JSONValue },
      { type: "set", path: ["status"], value: "running" },
    ];
    if (this.#state.error) ops.push({ type: "set", path: ["error"], value: "" });
    this.commit(ops);
    const run: ActiveRun = { controller: new AbortController(), cursor: { assistantMessageId: assistant.id, afterTool: false }, prompt };
    this.#run = run;
    void this.#drive(run);
  }

  async #drive(run: ActiveRun): Promise<void> {
    const body: RunnerQuery = { prompt: run.prompt, history: this.#transcript };
    const config = this.#state.config;
    if (config?.model) body.model = config.model;
    if (config?.systemPrompt) body.systemPrompt = config.systemPrompt;
    if (config?.maxTurns) body.maxTurns = config.maxTurns;
    try {
      for await (const event of this.#options.runner.query(body, { signal: run.controller.signal })) {
        if (this.#run !== run) return;
        if (event.type === "run.completed" || event.type === "run.error") return this.#finish(run, event);
        const { operations, cursor } = translateEvent(this.#state, run.cursor, event);
        run.cursor = cursor;
        if (operations.length) this.#stage(operations);
      }
      if (this.#run === run) this.#fail(run, "The run failed: the runner's event stream ended before the run finished");
    } catch (error) {
      if (this.#run === run) this.#fail(run, `The run failed: ${describe(error)}`);
    }
  }

  #finish(run: ActiveRun, event: TerminalEvent): void {
    const { operations } = translateEvent(this.#state, run.cursor, event);
    this.commit(operations);
    this.#settle(run, event.transcript);
  }

  #fail(run: ActiveRun, message: string): void {
    const i = findMessage(this.#state, run.cursor.assistantMessageId);
    if (i >= 0) this.commit(endRunOps(this.#state, i, "error", { status: "error", error: message }));
    this.#settle(run, undefined);
  }

  #cancel(conn: Connection, index: number): void {
    const run = this.#run;
    if (!run) {
      conn.send(errorFrame("nothing to cancel: no run is in progress", NOT_RUNNING, index));
      return;
    }
    this.#commitStaged();
    const i = findMessage(this.#state, run.cursor.assistantMessageId);
    if (i >= 0) this.commit(endRunOps(this.#state, i, "cancelled", { status: "idle", toolOutput: "cancelled" }));
    this.#settle(run, undefined);
  }

  /** Ends `run`: aborts its request if still open, records the transcript and stores a snapshot. */
  #settle(run: ActiveRun, transcript: TranscriptMessage[] | undefined): void {
    this.#run = undefined;
    run.controller.abort();
    if (transcript) {
      this.#transcript = transcript;
    } else {
      const i = findMessage(this.#state, run.cursor.assistantMessageId);
      this.#transcript = withSynthesizedTurn(this.#transcript, run.prompt, i < 0 ? "" : this.#state.messages[i].content);
    }
    this.#persister.snapshotSoon();
    this.#options.onSettled?.();
  }

  /** Writes down a run this process will not finish (restored mid-run, or closing). */
  #interrupt(): void {
    const run = this.#run;
    this.#commitStaged();
    const turn = lastInterruptedTurn(this.#state);
    this.commit(interruptionOps(this.#state));
    if (run) {
      this.#settle(run, undefined);
    } else {
      if (turn) this.#transcript = withSynthesizedTurn(this.#transcript, turn.prompt, turn.reply);
      this.#persister.snapshotSoon();
    }
  }

  /** Applies runner operations now and commits them, merged with any staged in the same macrotask,
   * once that macrotask is over. Consecutive text appends to one path become one append. */
  #stage(operations: DeltaOperation[]): void {
    this.#state = applyOperations(this.#state, operations);
    const staged = this.#staged;
    for (const op of operations) {
      const last = staged[staged.length - 1];
      if (op.type === "append-text" && last?.type === "append-text" && samePath(last.path, op.path)) {
        staged[staged.length - 1] = { type: "append-text", path: last.path, value: last.value + op.value };
      } else {
        staged.push(op);
      }
    }
    if (!this.#commitScheduled) {
      this.#commitScheduled = true;
      this.#defer(() => {
        this.#commitScheduled = false;
        this.#commitStaged();
      });
    }
  }

  #commitStaged(): void {
    if (this.#staged.length === 0) return;
    const operations = this.#staged;
    this.#staged = [];
    this.#record(operations);
  }

  #record(operations: DeltaOperation[]): number {
    const seq = ++this.#seq;
    const json = JSON.stringify(operations);
    const frame = deltaFrame(json, seq);
    this.#log.push(seq, frame);
    this.#persister.add({ seq, operations: json });
    for (const conn of this.#connections) {
      try {
        conn.send(frame);
      } catch (error) {
        this.#connections.delete(conn);
        this.#report(error, "sending to a client");
      }
    }
    return seq;
  }

  #snapshot(): SessionSnapshot {
    this.#commitStaged();
    return { state: this.#state, seq: this.#seq, transcript: this.#transcript };
  }

  #stateFrame(): string {
    if (this.#stateFrameCache?.seq !== this.#seq) this.#stateFrameCache = { seq: this.#seq, frame: stateFrame(this.#state, this.#seq) };
    return this.#stateFrameCache.frame;
  }

  /** Frames of the batches after `since` from the store, joined to the in-memory log without a gap. */
  #framesFromStore(since: number): string[] | undefined {
    let stored: StoredBatch[];
    try {
      stored = this.#options.store.readBatches?.(since) ?? [];
    } catch (error) {
      this.#report(error, "reading stored batches");
      return undefined;
    }
    if (stored.length === 0 || stored[0].seq !== since + 1) return undefined;
    const frames: string[] = [];
    let last = since;
    for (const batch of stored) {
      if (batch.seq > this.#seq) break;
      if (batch.seq !== last + 1) return undefined;
      frames.push(deltaFrame(batch.operations, batch.seq));
      last = batch.seq;
    }
    if (last === this.#seq) return frames;
    const rest = this.#log.after(last);
    return rest ? frames.concat(rest) : undefined;
  }

  #report(error: unknown, context: string): void {
    if (this.#options.onError) this.#options.onError(error, context);
    else console.error(`session: ${context}:`, error);
  }
}
