// The state holder of a session: state and seq, the bounded log of recent batches, the transcript,
// the connected clients, persistence, and the run in flight. Every change goes out as one numbered
// delta batch to every client and to the store. Commands and runs (commands.ts, run-driver.ts) work
// through it; nothing outside this package sees it.
import { applyOperations, emptyState, type DeltaOperation, type HarnessConfig, type HarnessState, type RunnerEvent, type RunnerPermissionMode, type TranscriptMessage } from "@harness/protocol";
import { createBatchLog, type BatchLog } from "./batch-log.ts";
import { HeldSends } from "./held-sends.ts";
import { createPersister, type FlushMode, type Persister } from "./persister.ts";
import type { Connection, Conversation, RunControl, RunnerPort, SessionCounts } from "./ports.ts";
import { firstSeqAfter, type LoadedSession, type RunRecord, type SessionSnapshot, type SessionStore, type StoredBatch } from "./store.ts";
import { runClockOp } from "./run-clock.ts";
import { addUsage, usageBeyond } from "./usage-count.ts";
import type { RunCursor } from "./translate.ts";
import { deltaFrame, errorFrame, stateFrame } from "./wire-frames.ts";

/** How far seq jumps after a host died: further than any number of batches that can have been
 * sent to clients but not stored, so no seq a client saw is ever reused for a different batch. */
export const SEQ_JUMP_AFTER_CRASH = 1_000_000;
/** The code of the error frame that tells clients the session is not being stored (a full disk):
 * it goes on in memory meanwhile. */
export const NOT_STORED = "not_stored";
/** See SessionOptions.replayBytes. Below a server's limit on what a client may leave unread (8 MiB),
 * so that a replay never cuts the connection it is meant to restore. */
export const DEFAULT_REPLAY_BYTES = 4 * 1024 * 1024;
/** A catch-up this small is replayed without asking how large the state frame would be. */
const SMALL_REPLAY_BYTES = 64 * 1024;

export type SessionOptions = {
  store: SessionStore;
  runner: RunnerPort;
  /** This session's id, so that `resume` naming it continues it. */
  sessionId?: string;
  /** Another session of the same user, for `resume`; undefined when there is none. */
  loadPeer?: (sessionId: string) => Promise<Conversation | undefined>;
  /** Batches kept in memory for replay to reconnecting clients (default 1000). */
  logCapacity?: number;
  /** A reconnecting client is replayed the frames it missed when they come to at most this many
   * bytes (default DEFAULT_REPLAY_BYTES) and to less than a state frame; otherwise it is sent a
   * state frame, one frame however much it missed. The in-memory log holds no more than this. */
  replayBytes?: number;
  /** The whole state is snapshotted after this many batches (default 500) or this many bytes of
   * them (default 1 MiB), and when the session closes; the transcript and marks are stored
   * whenever they change. */
  snapshotEvery?: number;
  snapshotBytes?: number;
  /** Delay between the first unsaved batch and its write (default 200 ms): a streaming session's
   * deltas, a few dozen a second, go to the store several at a time rather than one write each,
   * which costs the store's writer about half as much per delta. A crash loses only what the store
   * had not yet written; a run in flight is picked up again from its last stored event (the runner
   * keeps the rest). */
  flushDelayMs?: number;
  /** After a failed write, the next is tried this long after (default 1 s), changes or not: what a
   * store refused for a while (another process held its lock) is stored once it takes writes
   * again, even by a session nobody uses meanwhile. */
  storeRetryMs?: number;
  /** Runs `fn` after the current macrotask; staged runner events are committed then as one batch. */
  defer?: (fn: () => void) => void;
  /** Failures no client caused, such as a store write that threw (default console.error). */
  onError?: (error: unknown, context: string) => void;
  /** Why no new run may start now (the host is stopping and waits only for the runs in flight), or
   * undefined: a submit or resume is then refused with that reason and code "stopping", and a steer
   * a completed run left undelivered starts no run (its sender is told, with that code). */
  refusesRuns?: () => string | undefined;
  /** Called each time a run starts here (not one a previous host left), with the id the runner
   * knows it by. */
  onRunStarted?: (run: { id: string }) => void;
  /** Called each time a run ends (completed, failed, cancelled or interrupted), with the state it
   * left (its status and error say how it ended) and the run's id when the runner knew it by one. */
  onSettled?: (state: HarnessState, run: { id: string | undefined }) => void;
  /** Called as a hook of a run here ran (the runner's hook.ran), once per event received; must not throw. */
  onHookRan?: (event: Extract<RunnerEvent, { type: "hook.ran" }>) => void;
  newId?: () => string;
  /** Why the host cannot serve `model` (a provider it does not know, one its backend does not run,
   * one it has no key for, one the settings' availableModels leave out), or undefined. A configure
   * naming such a model is refused with that reason and changes nothing, instead of failing the
   * next run; the commands after it wait for a check that answers later. */
  checkModel?: (model: string) => string | undefined | Promise<string | undefined>;
  /** What the host counts for its operators (metrics); see SessionCounts. */
  counts?: SessionCounts;
};

/** A control request made before the run's id was known; sent once it is. */
export type WaitingControl = { control: RunControl; onFailure(message: string, status?: number): void; onSuccess?(): void };

export type ActiveRun = {
  controller: AbortController;
  cursor: RunCursor;
  prompt: string;
  userMessageId: string;
  /** The run's id as the runner confirmed it (run.started); controls wait for it. */
  requestId?: string;
  /** The id the query asked the runner to give the run, stored before the query is sent: a host
   * that dies before run.started reached it can still find the run by it. */
  proposedId?: string;
  /** Seq of the last runner event applied to the state. */
  seenSeq: number;
  /** The event seq and cursor as of the last committed batch: what the store may know. */
  committed: { seq: number; cursor: RunCursor };
  waiting: WaitingControl[];
  /** Tool calls answered (approve/deny) whose answer the runner has not confirmed yet. */
  answered: Set<string>;
  /** The permission mode last configured during the run, in the runner's words, until the run says
   * it took it: the modes the run says before then are superseded by it. `before`: the wire's mode
   * the configuration said when it was configured (undefined: none), which it says again should the
   * run refuse it and stay in a mode the wire cannot name (plan). */
  modeSent?: { mode: RunnerPermissionMode; before: HarnessConfig["permissionMode"] };
};

function defaultDefer(): (fn: () => void) => void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  return immediate ? (fn) => void immediate(fn) : (fn) => void setTimeout(fn, 0);
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class SessionCore {
  state: HarnessState;
  seq: number;
  transcript: TranscriptMessage[];
  /** The transcript the runner last handed back and the id it keeps it under: while `transcript` is
   * still that very array, a query names it instead of sending it. */
  runnerTranscript: { id: string; transcript: TranscriptMessage[] } | undefined;
  marks: Record<string, number>;
  run: ActiveRun | undefined;
  readonly options: SessionOptions;
  readonly newId: () => string;
  readonly connections = new Set<Connection>();
  /** The run record the store held when the session was loaded. */
  readonly restoredRun: RunRecord | undefined;
  readonly crashed: boolean;
  /** Set once the session ended here (closed or deleted): nothing more is committed. */
  ended = false;
  readonly #log: BatchLog;
  readonly #replayBytes: number;
  /** Why the session's latest changes are not stored, while a write keeps failing. */
  #notStored: string | undefined;
  readonly #persister: Persister;
  readonly #defer: (fn: () => void) => void;
  /** Seqs skipped after a crash: (from, to]. A client that holds `from` or less saw only stored batches. */
  readonly #gap: { from: number; to: number } | undefined;
  #staged: DeltaOperation[] = [];
  #commitScheduled = false;
  #stateFrameCache: { seq: number; frame: string } | undefined;
  /** The usage as of the last batch (each batch compares only this reference), and the most of
   * each count it has held: what options.counts was told. */
  #seenUsage: HarnessState["usage"];
  #countedUsage: HarnessState["usage"];
  /** Batches that reach clients only once stored (see holdSends). */
  readonly #held = new HeldSends({
    connected: (conn) => this.connections.has(conn),
    send: (conn, frame) => this.#send(conn, frame),
    welcome: (conn, since) => this.#welcome(conn, since),
  });

  constructor(options: SessionOptions, loaded: LoadedSession | undefined) {
    this.options = options;
    this.#defer = options.defer ?? defaultDefer();
    this.newId = options.newId ?? (() => crypto.randomUUID());
    this.#replayBytes = options.replayBytes ?? DEFAULT_REPLAY_BYTES;
    this.#log = createBatchLog(options.logCapacity ?? 1000, this.#replayBytes);
    this.state = loaded?.snapshot.state ?? emptyState();
    this.seq = loaded?.snapshot.seq ?? firstSeqAfter(options.store.unstoredSeq?.() ?? 0);
    this.transcript = loaded?.snapshot.transcript ?? [];
    this.marks = { ...loaded?.snapshot.marks };
    this.restoredRun = loaded?.run;
    for (const batch of loaded?.batches ?? []) {
      if (batch.seq !== this.seq + 1) break;
      try {
        this.state = applyOperations(this.state, JSON.parse(batch.operations) as DeltaOperation[]);
      } catch (error) {
        this.report(error, `restoring batch ${batch.seq}`);
        break;
      }
      this.seq = batch.seq;
      this.#log.push(batch.seq, deltaFrame(batch.operations, batch.seq));
    }
    this.#seenUsage = this.#countedUsage = this.state.usage;
    this.crashed = loaded !== undefined && !loaded.clean;
    if (this.crashed) {
      const jump = loaded?.seqJump ?? SEQ_JUMP_AFTER_CRASH;
      this.#gap = { from: this.seq, to: this.seq + jump };
      this.seq += jump;
      this.#log.clear();
    }
    this.#persister = createPersister({
      store: options.store,
      snapshot: () => this.#snapshot(),
      snapshotSeq: loaded ? loaded.snapshot.seq : -1,
      startSeq: this.seq,
      ...(loaded && { storedTranscript: this.transcript }),
      snapshotEvery: options.snapshotEvery ?? 500,
      snapshotBytes: options.snapshotBytes ?? 1024 * 1024,
      flushDelayMs: options.flushDelayMs ?? 200,
      ...(options.storeRetryMs !== undefined && { retryMs: options.storeRetryMs }),
      onError: (error) => this.#storeFailed(error),
      onRecovered: () => this.#storeRecovered(),
    });
    if (this.crashed) this.#persister.snapshotSoon();
  }

  conversation(): Conversation {
    this.commitStaged();
    return { state: this.state, transcript: this.transcript, marks: { ...this.marks } };
  }

  /** Adds a client and sends it what it lacks (see HarnessSession.connect). */
  connect(conn: Connection, since?: number): void {
    this.commitStaged();
    this.connections.add(conn);
    if (!this.#held.join(conn, since)) this.#welcome(conn, since);
  }

  /** From now until the next flush has settled, what is committed goes to the store first and to
   * clients after (a client that connects meanwhile is caught up then): a client never sees a
   * prompt that a host killed in between would not have. */
  holdSends(): void {
    this.#held.hold();
  }

  #welcome(conn: Connection, since: number | undefined): void {
    this.#catchUp(conn, since);
    if (this.#notStored !== undefined) this.sendNotice(conn, this.#notStored, NOT_STORED);
  }

  #catchUp(conn: Connection, since: number | undefined): void {
    if (since === this.seq) return;
    if (since !== undefined && Number.isInteger(since) && since >= 0 && since < this.seq) {
      const frames = this.#framesAfter(since, this.#replayBytes);
      if (frames && this.#cheaperThanState(frames)) {
        for (const frame of frames) conn.send(frame);
        return;
      }
    }
    conn.send(this.#stateFrame());
  }

  /** Sends an error frame that refuses a command or a frame (counted as such). */
  sendError(conn: Connection, message: string, code: string, index?: number): void {
    this.options.counts?.refused(code);
    this.#sendErrorFrame(conn, message, code, index);
  }

  /** Sends an error frame that tells of the session, not of a command: it is not stored, it was
   * deleted. Counted apart from refusals. */
  sendNotice(conn: Connection, message: string, code: string): void {
    this.options.counts?.notice(code);
    this.#sendErrorFrame(conn, message, code);
  }

  #sendErrorFrame(conn: Connection, message: string, code: string, index?: number): void {
    const frame = errorFrame(message, code, index);
    // After the batches held back (see holdSends): an error about a later command comes after them.
    if (!this.#held.error(conn, frame)) conn.send(frame);
  }

  /** Applies `operations` as one batch: the next seq, the log, the store and every client. Runner
   * operations staged and not yet committed go first in the same batch (they are applied already):
   * a run's last text and its end reach clients as one frame. */
  commit(operations: DeltaOperation[]): number {
    const staged = this.#staged;
    this.#staged = [];
    operations = this.#withRunClock(operations);
    return this.#record(staged.length > 0 ? [...staged, ...operations] : operations);
  }

  /** Applies runner operations now and commits them, merged with any staged in the same macrotask,
   * once that macrotask is over. Consecutive text appends to one path become one append. */
  stage(operations: DeltaOperation[]): void {
    operations = this.#withRunClock(operations);
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
        this.commitStaged();
      });
    }
  }

  /** Applies `operations` to the state, and the run clock's change they call for (run-clock.ts);
   * returns all of them. */
  #withRunClock(operations: DeltaOperation[]): DeltaOperation[] {
    const before = this.state.status;
    this.state = applyOperations(this.state, operations);
    const clock = runClockOp(before, this.state, Date.now());
    if (!clock) return operations;
    this.state = applyOperations(this.state, [clock]);
    return [...operations, clock];
  }

  commitStaged(): void {
    if (this.#staged.length === 0) return;
    const operations = this.#staged;
    this.#staged = [];
    this.#record(operations);
  }

  /** Records that `run` has applied `event`; when the event changed nothing still uncommitted, the
   * store may learn of it at once. */
  applied(run: ActiveRun, event: RunnerEvent): void {
    run.seenSeq = event.seq;
    if (this.#staged.length === 0 && this.run === run) {
      run.committed = { seq: run.seenSeq, cursor: run.cursor };
      this.#persister.setRun(recordOf(run));
    }
  }

  /** Stores the run record now (a run started, learned its id, or ended). */
  runChanged(): void {
    this.#persister.setRun(this.run ? recordOf(this.run) : null);
  }

  /** The transcript or the marks changed: the store hears of it with the next write. */
  conversationChanged(): void {
    this.#persister.conversationChanged();
  }

  flush(mode?: FlushMode): Promise<void> {
    const flushed = this.#persister.flush(mode);
    // Sent also when the write failed: the clients are told it is not stored (see #storeFailed).
    this.#held.releaseAfter(flushed);
    return flushed;
  }

  stopPersisting(): void {
    this.#persister.stop();
  }

  discard(): void {
    this.#staged = [];
    this.#held.drop();
    this.#persister.discard();
  }

  /** Clients are told once that what they see is not being stored, and why; a client that connects
   * meanwhile is told too. */
  #storeFailed(error: unknown): void {
    this.report(error, "storing the session");
    if (this.#notStored !== undefined) return;
    const why = error instanceof Error ? error.message : String(error);
    this.#notStored = `this session could not be saved (${why}): its latest changes are kept in memory and saved once the store takes them again; a server stopped before then loses them`;
    for (const conn of this.connections) this.sendNotice(conn, this.#notStored, NOT_STORED);
  }

  #storeRecovered(): void {
    this.#notStored = undefined;
  }

  report(error: unknown, context: string): void {
    if (this.options.onError) this.options.onError(error, context);
    else console.error(`session: ${context}:`, error);
  }

  #record(operations: DeltaOperation[]): number {
    const seq = ++this.seq;
    const json = JSON.stringify(operations);
    const frame = deltaFrame(json, seq);
    this.#log.push(seq, frame);
    this.#persister.add({ seq, operations: json });
    if (this.state.usage !== this.#seenUsage) this.#countUsage();
    const run = this.run;
    if (run && (run.committed.seq !== run.seenSeq || run.committed.cursor !== run.cursor)) {
      run.committed = { seq: run.seenSeq, cursor: run.cursor };
      this.#persister.setRun(recordOf(run));
    }
    if (!this.#held.batch(frame, this.connections)) for (const conn of this.connections) this.#send(conn, frame);
    return seq;
  }

  /** Tells options.counts what the usage holds beyond the most it held before, count by count: a
   * run's end that sets the totals below what its calls reported, and back up, is counted once. */
  #countUsage(): void {
    const now = this.state.usage;
    this.#seenUsage = now;
    if (!now) return;
    const added = this.#countedUsage ? usageBeyond(now, this.#countedUsage) : now;
    this.#countedUsage = addUsage(this.#countedUsage, added);
    this.options.counts?.usage(added);
  }

  #send(conn: Connection, frame: string): void {
    try {
      conn.send(frame);
    } catch (error) {
      this.connections.delete(conn);
      this.report(error, "sending to a client");
    }
  }

  #snapshot(): SessionSnapshot {
    this.commitStaged();
    return { state: this.state, seq: this.seq, transcript: this.transcript, marks: { ...this.marks } };
  }

  #stateFrame(): string {
    if (this.#stateFrameCache?.seq !== this.seq) this.#stateFrameCache = { seq: this.seq, frame: stateFrame(this.state, this.seq) };
    return this.#stateFrameCache.frame;
  }

  /** Whether replaying `frames` sends less than one state frame would. */
  #cheaperThanState(frames: readonly string[]): boolean {
    const length = lengthOf(frames);
    return length <= SMALL_REPLAY_BYTES || length < this.#stateFrame().length;
  }

  /** The frames of every batch after `since`, without a gap, or undefined when they are not all kept
   * or come to more than about `maxBytes`. */
  #framesAfter(since: number, maxBytes: number): string[] | undefined {
    const gap = this.#gap;
    if (!gap || since >= gap.to) {
      const held = this.#logAfter(since, maxBytes);
      // Past the budget in the log alone: the store, which holds more, is not asked.
      if (held === "too-large") return undefined;
      return held === "not-held" ? this.#framesFromStore(since, this.seq, maxBytes) : held;
    }
    // Across a crash: a client that saw only stored batches gets the stored ones it missed, then
    // everything after the jump; one that may have seen lost batches gets a state frame.
    if (since > gap.from) return undefined;
    const before = since === gap.from ? [] : this.#framesFromStore(since, gap.from, maxBytes);
    if (!before) return undefined;
    if (this.seq === gap.to) return before;
    const after = this.#logAfter(gap.to, maxBytes - lengthOf(before));
    return Array.isArray(after) ? before.concat(after) : undefined;
  }

  /** The in-memory log's frames after `since`, unless it does not hold them all or they come to
   * more than `maxBytes` (then they are not decoded). */
  #logAfter(since: number, maxBytes: number): string[] | "not-held" | "too-large" {
    const bytes = this.#log.bytesAfter(since);
    if (bytes === undefined) return "not-held";
    return bytes > maxBytes ? "too-large" : this.#log.after(since)!;
  }

  /** Frames of the batches in (since, until] from the store, joined to the in-memory log without a gap. */
  #framesFromStore(since: number, until: number, maxBytes: number): string[] | undefined {
    let stored: StoredBatch[] | undefined;
    try {
      stored = this.options.store.readBatches ? this.options.store.readBatches(since, maxBytes) : [];
    } catch (error) {
      this.report(error, "reading stored batches");
      return undefined;
    }
    if (!stored || stored.length === 0 || stored[0].seq !== since + 1) return undefined;
    const frames: string[] = [];
    let last = since;
    for (const batch of stored) {
      if (batch.seq > until) break;
      if (batch.seq !== last + 1) return undefined;
      frames.push(deltaFrame(batch.operations, batch.seq));
      last = batch.seq;
    }
    if (last === until) return frames;
    const rest = this.#logAfter(last, maxBytes - lengthOf(frames));
    return Array.isArray(rest) && until === this.seq ? frames.concat(rest) : undefined;
  }
}

/** The UTF-16 length of `texts` together: their size, near enough for budgets. */
function lengthOf(texts: readonly string[]): number {
  let length = 0;
  for (const text of texts) length += text.length;
  return length;
}

export function recordOf(run: ActiveRun): RunRecord {
  const record: RunRecord = {
    lastEventSeq: run.committed.seq,
    userMessageId: run.userMessageId,
    assistantMessageId: run.committed.cursor.assistantMessageId,
    afterTool: run.committed.cursor.afterTool,
  };
  if (run.committed.cursor.live) record.live = run.committed.cursor.live;
  const requestId = run.requestId ?? run.proposedId;
  if (requestId) record.requestId = requestId;
  return record;
}
