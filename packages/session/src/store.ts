// The storage port of a session. A host implements it on its own storage (SQLite on Node, Durable
// Object storage on Cloudflare). The session writes an append-only log of batches and, from time to
// time, a snapshot; loading takes the snapshot and replays the batches stored after it.
import type { HarnessState, TranscriptMessage } from "@harness/protocol";
import type { LiveCount } from "./usage-count.ts";

export type SessionSnapshot = {
  state: HarnessState;
  /** Seq of the last batch the state includes. */
  seq: number;
  transcript: TranscriptMessage[];
  /** Per user message that started a run: the transcript's length before that run (what a rewind
   * to that message cuts the transcript back to). */
  marks?: Record<string, number>;
};

/** The run in flight, as far as the stored batches go: enough to re-attach to it after the host
 * died and translate its remaining events. Written in the same store write as the batches that
 * hold the effects of its events up to `lastEventSeq`. */
export type RunRecord = {
  /** The runner's id of the run (from run.started); absent until it is known. */
  requestId?: string;
  /** Seq of the last runner event whose effects are in the stored batches. */
  lastEventSeq: number;
  /** Only in records stored by earlier versions. The prompt is the text of the user message
   * `userMessageId`; the record is stored again with every batch, so it stays small whatever the
   * prompt's size. */
  prompt?: string;
  userMessageId: string;
  /** The assistant message the run writes into, and whether a tool call came last. */
  assistantMessageId: string;
  afterTool: boolean;
  /** What the run's reported calls counted so far, and the totals before them (see RunCursor). */
  live?: LiveCount;
};

/** One committed batch. `operations` is the JSON text of its DeltaOperation[] (serialized once, for
 * the wire and for storage alike). */
export type StoredBatch = { seq: number; operations: string };

export type LoadedSession = {
  snapshot: SessionSnapshot;
  /** Batches with seq > snapshot.seq, oldest first, without gaps. */
  batches: StoredBatch[];
  /** False unless the session's last write was a final one (its host closed it). A session that
   * was not closed cleanly may have sent clients batches that never reached the store. */
  clean: boolean;
  /** The run that was in flight as of the last stored batch, if any. */
  run?: RunRecord;
  /** When not clean: how far past the stored seq the session numbers on (default
   * SEQ_JUMP_AFTER_CRASH). A store that may have been loaded from the same seq by several hosts that
   * died in turn gives each a further jump, so that they never hand out the same numbers. */
  seqJump?: number;
};

export type WriteOptions = {
  /** The session is being closed: this write holds everything, and the next load is clean. */
  final?: boolean;
  /** Replaces the stored run record (null: no run in flight); absent: unchanged. */
  run?: RunRecord | null;
  /** The snapshot's transcript begins with the very transcript this store holds, which is this many
   * messages long: the store keeps what it has and adds only the rest (a long conversation's
   * transcript is megabytes, and a run adds a few messages to it). */
  transcriptKept?: number;
  /** The store keeps the state it holds and that state's seq: of the snapshot only the transcript
   * and the marks are new (they changed: a run started or ended, a rewind). The batches carry the
   * state forward, so it is written whole only now and then; a long conversation's state is
   * megabytes. */
  stateKept?: true;
  /** Something waits on this write (a query held until its prompt is stored): the store commits it
   * without waiting to share a transaction with other sessions' writes. */
  urgent?: true;
  /** When the last of the batches was made (ms since the epoch): the session's last change, which
   * orders a user's sessions. A write waits some milliseconds (and longer when the store is busy),
   * so that two sessions changed one after the other keep that order. */
  changedAt?: number;
};

export type SessionStore = {
  /** The stored session, or undefined when it was never written. Loading marks the session open
   * (not clean) durably before it returns, so a host that dies afterwards is noticed next time; a
   * store that cannot do so now (its file is locked) loads the session as not clean instead. */
  load(): LoadedSession | undefined | Promise<LoadedSession | undefined>;
  /** Appends `batches` (consecutive, after every batch written before) and, when given, replaces
   * the snapshot — atomically. Calls never overlap: the session waits for one before the next. */
  write(batches: readonly StoredBatch[], snapshot?: SessionSnapshot, options?: WriteOptions): void | Promise<void>;
  /** Stored batches with seq > `after`, oldest first, for clients that reconnect after more than the
   * in-memory log holds. Omitted by stores that keep no older batches; may return a suffix only.
   * Undefined when their operations come to more than `maxBytes` (counted in UTF-16 units): the
   * client is sent a state frame instead, and the store need not read further. */
  readBatches?(after: number, maxBytes?: number): StoredBatch[] | undefined;
  /** For a session never written: the highest seq a client may hold for this id that the store does
   * not (0 or omitted: none). That is the last seq a deleted session of the same id reached, or, once
   * a host died with writes not yet stored, a number past any seq an unstored session can have sent.
   * The new session numbers its batches after it, so that such a client that reconnects with
   * `since` gets a state frame, not the new batches as if they followed what it holds. */
  unstoredSeq?(): number;
};

/** The seq a session made under an id starts at: past `unstoredSeq` (see SessionStore.unstoredSeq,
 * 0 when there is none), else `seq` (0 for an empty session, or a copy's own). */
export function firstSeqAfter(unstoredSeq: number, seq = 0): number {
  return unstoredSeq > 0 ? Math.max(seq, unstoredSeq + 1) : seq;
}

/** A store in memory, for tests and for hosts that need no durability. */
export function memoryStore(initial?: LoadedSession): SessionStore & {
  snapshot?: SessionSnapshot;
  batches: StoredBatch[];
  writes: number;
  clean: boolean;
  run: RunRecord | undefined;
} {
  const store = {
    snapshot: initial ? structuredClone(initial.snapshot) : undefined,
    batches: initial ? initial.batches.slice() : [],
    writes: 0,
    clean: initial?.clean ?? false,
    run: initial?.run ? { ...initial.run } : undefined,
    load(): LoadedSession | undefined {
      if (!store.snapshot) return undefined;
      const at = store.snapshot.seq;
      const clean = store.clean;
      store.clean = false;
      const loaded: LoadedSession = { snapshot: structuredClone(store.snapshot), batches: store.batches.filter((b) => b.seq > at), clean };
      if (store.run) loaded.run = { ...store.run };
      return loaded;
    },
    write(batches: readonly StoredBatch[], snapshot?: SessionSnapshot, options?: WriteOptions): void {
      if (!snapshot && !store.snapshot) throw new Error("the first write of a session must carry a snapshot");
      store.writes++;
      store.batches.push(...batches);
      if (snapshot) {
        const keep = options?.transcriptKept;
        const kept = keep === undefined ? undefined : store.snapshot?.transcript;
        if (keep !== undefined && kept?.length !== keep) throw new Error(`the session has no stored transcript of ${keep} messages to keep`);
        const stored = store.snapshot;
        if (options?.stateKept && !stored) throw new Error("the session has no stored state to keep");
        const next = structuredClone({
          ...(stored && options?.stateKept ? { state: stored.state, seq: stored.seq } : { state: snapshot.state, seq: snapshot.seq }),
          transcript: kept ? snapshot.transcript.slice(kept.length) : snapshot.transcript,
          ...(snapshot.marks && { marks: snapshot.marks }),
        });
        if (kept) next.transcript = kept.concat(next.transcript);
        store.snapshot = next;
      }
      if (options?.run !== undefined) store.run = options.run === null ? undefined : { ...options.run };
      store.clean = options?.final === true;
    },
    readBatches(after: number, maxBytes = Infinity): StoredBatch[] | undefined {
      const batches = store.batches.filter((b) => b.seq > after);
      return batches.reduce((total, b) => total + b.operations.length, 0) > maxBytes ? undefined : batches;
    },
  };
  return store;
}
