// Batched persistence of a session: committed batches queue up and are written many per store call,
// some milliseconds after the first of them (SessionOptions.flushDelayMs). The transcript and marks
// go with them when they changed; the state is snapshotted whole only when enough batches piled up
// since the last time (the batches carry it forward, and encoding a long conversation's state costs
// milliseconds).
// Writes never overlap and never reorder.
import { extendsHistory } from "@harness/protocol";
import type { RunRecord, SessionSnapshot, SessionStore, StoredBatch, WriteOptions } from "./store.ts";

export type PersisterOptions = {
  store: SessionStore;
  /** The session as of its last committed batch. */
  snapshot(): SessionSnapshot;
  /** Seq of the stored snapshot; -1 when the session was never written. */
  snapshotSeq: number;
  /** A session never written starts at this seq (0, or past a deleted session of the same id): a
   * snapshot still at it holds nothing and is not written. */
  startSeq?: number;
  /** The transcript the store holds, as loaded from it (the snapshot's transcript object). */
  storedTranscript?: readonly unknown[];
  /** The state is snapshotted once this many batches, or this many bytes of them, were stored
   * since its last snapshot: what loading the session replays stays within these. */
  snapshotEvery: number;
  snapshotBytes: number;
  flushDelayMs: number;
  /** A failed write is tried again this long after (default 1 s). */
  retryMs?: number;
  onError(error: unknown): void;
  /** A write succeeded after one or more had failed. */
  onRecovered?(): void;
};

export type FlushMode = "final" | "urgent";

export type Persister = {
  /** Queues a committed batch and schedules a write. */
  add(batch: StoredBatch): void;
  /** The transcript or the marks changed (a run started or ended, a rewind): they go with the next
   * write, which is scheduled. */
  conversationChanged(): void;
  /** Asks for a snapshot of the whole state with the next write, urgent or not, and schedules one. */
  snapshotSoon(): void;
  /** The run record as of the last batch added (null: none); it goes with the next write. */
  setRun(run: RunRecord | null): void;
  /** Writes everything queued, with a snapshot of the whole state, and resolves when stored.
   * "final" marks the session closed; "urgent" asks the store not to delay the write (see
   * WriteOptions) and leaves the snapshot to the next write, unless one is due (snapshotSoon). */
  flush(mode?: FlushMode): Promise<void>;
  /** Cancels the scheduled write; queued batches stay queued for flush(). */
  stop(): void;
  /** Drops everything queued and writes nothing more, ever (the session was deleted). */
  discard(): void;
};

export function createPersister(options: PersisterOptions): Persister {
  const { store } = options;
  let queued: StoredBatch[] = [];
  /** When the last queued batch was added (WriteOptions.changedAt). */
  let lastAddedAt = 0;
  /** The last write failed; what it held is queued again. */
  let failing = false;
  /** The size of the queued batches' operations, in UTF-16 units. */
  let queuedBytes = 0;
  let snapshotSeq = options.snapshotSeq;
  /** Batches stored since the state's last snapshot, and their size. */
  let sinceSnapshot = 0;
  let bytesSinceSnapshot = 0;
  let snapshotDue = snapshotSeq < 0;
  let conversationDue = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  let run: { value: RunRecord | null; dirty: boolean } = { value: null, dirty: false };
  let discarded = false;
  /** The transcript of the snapshot last stored (the same object while it does not change). */
  let storedTranscript: readonly unknown[] | undefined = options.storedTranscript;
  /** How many writes added to the stored transcript since it was last written whole. */
  let appended = 0;

  async function writeOnce(forceSnapshot: boolean, mode: FlushMode | undefined): Promise<void> {
    const final = mode === "final";
    if (discarded) return;
    // An urgent write holds someone up: it carries the batches and the run record, not the state,
    // transcript or marks, which follow with the next write; unless a snapshot is due first: the
    // session was never stored, or was loaded after a crash and numbers on past a gap, so that
    // batches stored after the gap without it would not follow the stored snapshot, and a load
    // after a second crash would stop at the gap and lose them.
    const wantState =
      (mode !== "urgent" || snapshotDue) &&
      (forceSnapshot ||
        snapshotDue ||
        sinceSnapshot + queued.length >= options.snapshotEvery ||
        bytesSinceSnapshot + queuedBytes >= options.snapshotBytes);
    const wantConversation = wantState || (mode !== "urgent" && conversationDue);
    if (queued.length === 0 && !wantConversation && !run.dirty) return;
    // Taken before the batches and the run record: taking it may commit staged operations, which
    // queues their batch and moves the record along.
    const snapshot = wantConversation ? options.snapshot() : undefined;
    const batches = queued;
    const bytes = queuedBytes;
    const runWritten = run;
    if (
      snapshot &&
      batches.length === 0 &&
      !runWritten.dirty &&
      !conversationDue &&
      (snapshot.seq === snapshotSeq ? !final : snapshotSeq < 0 && snapshot.seq === (options.startSeq ?? 0))
    ) {
      // Nothing changed since the last write (or ever: a session nobody used leaves no trace).
      return;
    }
    queued = [];
    queuedBytes = 0;
    const writeOptions: WriteOptions = {};
    if (final) writeOptions.final = true;
    if (mode === "urgent") writeOptions.urgent = true;
    if (batches.length > 0) writeOptions.changedAt = lastAddedAt;
    if (snapshot && !wantState) writeOptions.stateKept = true;
    // Cleared now: a change made while this write is under way goes with the next one.
    if (snapshot) conversationDue = false;
    if (runWritten.dirty) {
      writeOptions.run = runWritten.value;
      run = { value: runWritten.value, dirty: false };
    }
    const kept = snapshot && keptPrefix(snapshot.transcript, storedTranscript, appended);
    if (kept !== undefined) writeOptions.transcriptKept = kept;
    try {
      await store.write(batches, snapshot, Object.keys(writeOptions).length > 0 ? writeOptions : undefined);
    } catch (error) {
      failing = true;
      queued = batches.concat(queued);
      queuedBytes += bytes;
      if (snapshot) conversationDue = true;
      if (runWritten.dirty && !run.dirty) run = runWritten;
      // The next snapshot carries its transcript whole, whatever this write left behind.
      storedTranscript = undefined;
      options.onError(error);
      schedule(options.retryMs ?? 1000);
      // The retry alone keeps no process alive: one that is ending has made its last write.
      (timer as { unref?: () => void } | undefined)?.unref?.();
      return;
    }
    if (failing) {
      failing = false;
      options.onRecovered?.();
    }
    if (snapshot) {
      appended = kept === undefined ? 0 : kept === snapshot.transcript.length ? appended : appended + 1;
      storedTranscript = snapshot.transcript;
    }
    if (wantState && snapshot) {
      snapshotSeq = snapshot.seq;
      sinceSnapshot = 0;
      bytesSinceSnapshot = 0;
      snapshotDue = false;
    } else {
      sinceSnapshot += batches.length;
      bytesSinceSnapshot += bytes;
    }
  }

  function enqueue(forceSnapshot: boolean, mode?: FlushMode): Promise<void> {
    chain = chain.then(() => writeOnce(forceSnapshot, mode));
    return chain;
  }

  function schedule(delayMs = options.flushDelayMs): void {
    if (timer !== undefined || discarded) return;
    timer = setTimeout(() => {
      timer = undefined;
      void enqueue(false);
    }, delayMs);
  }

  return {
    add(batch) {
      queued.push(batch);
      lastAddedAt = Date.now();
      queuedBytes += batch.operations.length;
      schedule();
    },
    conversationChanged() {
      conversationDue = true;
      schedule();
    },
    snapshotSoon() {
      snapshotDue = true;
      schedule();
    },
    setRun(value) {
      run = { value, dirty: true };
      schedule();
    },
    flush(mode) {
      // The scheduled write stays for an urgent one: it brings the snapshot.
      if (mode === "urgent") return enqueue(false, mode);
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      return enqueue(true, mode);
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    discard() {
      discarded = true;
      queued = [];
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** After this many additions the transcript is written whole again, so that a store that keeps the
 * additions apart (SQLite: a row each) does not gather them without end. */
const APPENDS_BEFORE_WHOLE = 100;

/** How many messages of `transcript` the store keeps (it holds `stored`, and `transcript` begins with
 * those very messages); undefined when it must be written whole. */
function keptPrefix(transcript: readonly unknown[], stored: readonly unknown[] | undefined, appended: number): number | undefined {
  if (!stored) return undefined;
  if (transcript === stored) return stored.length;
  if (appended >= APPENDS_BEFORE_WHOLE || !extendsHistory(transcript, stored)) return undefined;
  return stored.length;
}
