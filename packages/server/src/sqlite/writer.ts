// The session database's writer: a worker thread with a connection of its own that commits the
// writes the server gathers. A commit costs the thread that makes it from a few hundred microseconds
// to tens of milliseconds (the WAL's writes and checkpoints); on the server's event loop that stalled
// every stream it carries. Requests are handled in order; each is one transaction, answered once.
import { parentPort, workerData } from "node:worker_threads";
import { connect } from "./schema.ts";
import { DatabaseLockedError, isBusy } from "./locked.ts";

/** One session's write, as the server sends it: JSON already encoded. */
export type WriteOp = {
  userId: string;
  sessionId: string;
  batches: readonly { seq: number; operations: string }[];
  /** `state`: the whole state and the seq of its last batch; without it the stored one is kept.
   * `transcript`: the whole transcript; without it the stored one is kept, with `transcriptTail`
   * added at its end, `from` being the stored transcript's length. Whatever is kept, the session's
   * row must exist. */
  snapshot?: { state?: { json: string; seq: number }; transcript?: string; transcriptTail?: { from: number; messages: string }; marks: string };
  /** The session was closed cleanly with this write. */
  final: boolean;
  /** The run record as JSON; null clears it; absent leaves it. */
  run?: string | null;
  /** Deletes the session instead, remembering the last seq its clients may hold (at least this). */
  remove?: true;
  lastSeq?: number;
  /** The session was opened: its row no longer says "closed cleanly". */
  markOpen?: true;
  /** When the batches were made (WriteOptions.changedAt); default: when they are stored. */
  changedAt?: number;
};

export type WriterRequest = { id: number; writes: WriteOp[] } | { id: number; close: true };
/** `transactions`: committed so far. `error`: the request's transaction failed (nothing of it is
 * stored); `locked`: because another process held the file's lock, so the same writes may succeed
 * later. `failed`: writes rolled back alone (by their index), the others are stored. `problem`:
 * something after the commit failed (pruning old batches). */
export type WriterReply = { id: number; transactions: number; error?: string; locked?: true; failed?: { index: number; error: string }[]; problem?: string };

export type WriterData = {
  path: string;
  /** Batches kept per session; older ones are pruned. */
  keptBatches: number;
  /** And at most this many bytes (UTF-16 units) of their operations. The batches after the
   * session's snapshot are kept whatever their number and size: loading the session needs them. */
  keptBytes: number;
  /** The server's opening of the file (open-mark.ts): a row closed cleanly says it. */
  opening: number;
  /** Int32 [0]: the id of the last request handled, so a waiting thread can block on it; [1]: the
   * id of the last request whose transaction failed (nothing of it stored), so that thread can tell;
   * [2]: 1 once the thread handles no more requests (it could not open the file), so that thread
   * does not wait for one sent meanwhile. */
  done: SharedArrayBuffer;
};

/** Pruning runs once a session has this many batches beyond those kept. */
const PRUNE_SLACK = 500;
/** A transaction waits this long for the file's write lock (the server's own connection takes it
 * for a moment now and then). Held longer, by another process, the lock fails the transaction:
 * its writes go back to their sessions, which send them again later. Failing, not waiting, keeps
 * the sessions going (a run starts once its record's write is answered) and the requests from
 * piling up behind one that waits. */
const LOCK_WAIT_MS = 200;

function serve(data: WriterData): void {
  const port = parentPort!;
  const done = new Int32Array(data.done);
  const db = connect(data.path, LOCK_WAIT_MS);
  const insertDelta = db.prepare("INSERT OR REPLACE INTO deltas (user_id, session_id, seq, ops) VALUES (?, ?, ?, ?)");
  // Rewriting the session row rewrites all of it (state and transcript: megabytes in a long
  // conversation): only a new state or a whole transcript does. The marks of earlier versions'
  // files (sessions.marks) go once the row is rewritten: session_marks holds them by then.
  // Wherever clean is written, closed_by is too: this opening (see open-mark.ts).
  const upsertSession = db.prepare(
    `INSERT INTO sessions (user_id, session_id, state, seq, transcript, marks, updated_at, created_at, clean, closed_by) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ${data.opening})
     ON CONFLICT (user_id, session_id) DO UPDATE SET state = excluded.state, seq = excluded.seq,
       transcript = excluded.transcript, marks = NULL, updated_at = excluded.updated_at, clean = excluded.clean, closed_by = excluded.closed_by`,
  );
  const updateState = db.prepare(`UPDATE sessions SET state = ?, seq = ?, marks = NULL, updated_at = ?, clean = ?, closed_by = ${data.opening} WHERE user_id = ? AND session_id = ?`);
  const updateTranscript = db.prepare(`UPDATE sessions SET transcript = ?, marks = NULL, updated_at = ?, clean = ?, closed_by = ${data.opening} WHERE user_id = ? AND session_id = ?`);
  const sessionExists = db.prepare("SELECT 1 AS found FROM sessions WHERE user_id = ? AND session_id = ?");
  const setMarks = db.prepare(
    `INSERT INTO session_marks (user_id, session_id, marks) VALUES (?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET marks = excluded.marks`,
  );
  const clearTails = db.prepare("DELETE FROM transcript_tails WHERE user_id = ? AND session_id = ? AND position >= ?");
  const addTail = db.prepare("INSERT INTO transcript_tails (user_id, session_id, position, messages) VALUES (?, ?, ?, ?)");
  const setClean = db.prepare(`UPDATE sessions SET clean = ?, closed_by = ${data.opening}, updated_at = ? WHERE user_id = ? AND session_id = ?`);
  const markOpen = db.prepare("UPDATE sessions SET clean = 0 WHERE user_id = ? AND session_id = ?");
  const touch = db.prepare(
    `INSERT INTO activity (user_id, session_id, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at`,
  );
  const setRun = db.prepare(
    `INSERT INTO activity (user_id, session_id, updated_at, run) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at, run = excluded.run`,
  );
  // A run record changed with no batch (cleared as the session closes) is no change a user sees:
  // the session keeps its place in the list (catalog.ts).
  const setRunOnly = db.prepare(
    `INSERT INTO activity (user_id, session_id, updated_at, run) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET run = excluded.run`,
  );
  // A session made later under the same id numbers its batches after every seq the deleted one
  // reached, stored or not: a client of the deleted one that reconnects with `since` is sent a state.
  // Kept for DELETED_KEPT_MS from the deletion (open-mark.ts).
  const rememberDeleted = db.prepare(
    `INSERT INTO deleted_sessions (user_id, session_id, seq, deleted_at)
     SELECT ?1, ?2, MAX(?3, COALESCE((SELECT seq FROM sessions WHERE user_id = ?1 AND session_id = ?2), 0),
       COALESCE((SELECT MAX(seq) FROM deltas WHERE user_id = ?1 AND session_id = ?2), 0),
       COALESCE((SELECT seq FROM deleted_sessions WHERE user_id = ?1 AND session_id = ?2), 0)) AS last, ?4 WHERE last > 0
     ON CONFLICT (user_id, session_id) DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at`,
  );
  const removeRows = ["sessions", "deltas", "runners", "activity", "transcript_tails", "session_marks", "mcp_approvals", "registered_tools"].map((table) => db.prepare(`DELETE FROM ${table} WHERE user_id = ? AND session_id = ?`));
  const prune = db.prepare("DELETE FROM deltas WHERE user_id = ? AND session_id = ? AND seq <= ?");
  // The newest seq whose batch, with all the newer ones, comes to more than the bytes kept (0: none).
  const overBytes = db.prepare(
    `SELECT COALESCE(MAX(seq), 0) AS seq FROM (
       SELECT seq, SUM(length(ops)) OVER (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING) AS newer
       FROM deltas WHERE user_id = ? AND session_id = ?
     ) WHERE newer > ?`,
  );
  // Prepared, not exec'd: every write has its own savepoint, and exec parses its SQL each time.
  const savepoint = db.prepare("SAVEPOINT one");
  const rollbackTo = db.prepare("ROLLBACK TO one");
  const release = db.prepare("RELEASE one");

  let transactions = 0;
  /** Sessions whose row says "closed cleanly": the next write that is not final says otherwise. */
  const closedClean = new Set<string>();
  /** `bytes`: of the batches written since the last pruning. */
  const written = new Map<string, { userId: string; sessionId: string; seq: number; snapshotSeq: number; prunedTo: number; bytes: number }>();

  // Batches after the snapshot are needed to load the session, so they are never pruned.
  const pruneLimit = (entry: { seq: number; snapshotSeq: number }) => Math.min(entry.seq - data.keptBatches, entry.snapshotSeq);

  // Keys as sessionKey (ids.ts) makes them; not imported, to keep zod out of this thread.
  const keyOf = (w: WriteOp) => `${w.userId}\0${w.sessionId}`;

  function apply(w: WriteOp, now: number): void {
    const key = keyOf(w);
    if (w.remove) {
      rememberDeleted.run(w.userId, w.sessionId, w.lastSeq ?? 0, Date.now());
      for (const statement of removeRows) statement.run(w.userId, w.sessionId);
      closedClean.delete(key);
      return;
    }
    if (w.markOpen) {
      markOpen.run(w.userId, w.sessionId);
      closedClean.delete(key);
      return;
    }
    for (const b of w.batches) insertDelta.run(w.userId, w.sessionId, b.seq, b.operations);
    let rowWritten = false;
    if (w.snapshot) {
      const { state, transcript, transcriptTail: tail, marks } = w.snapshot;
      const clean = w.final ? 1 : 0;
      if (state && transcript !== undefined) {
        // A session made by this write was made when its batches were, however long they waited.
        upsertSession.run(w.userId, w.sessionId, state.json, state.seq, transcript, now, Math.min(now, w.changedAt ?? now), clean);
      } else if (state || transcript !== undefined) {
        const changes = state
          ? updateState.run(state.json, state.seq, now, clean, w.userId, w.sessionId).changes
          : updateTranscript.run(transcript!, now, clean, w.userId, w.sessionId).changes;
        if (changes === 0) throw new Error(`the session has no stored ${state ? "transcript" : "state"} to keep`);
      } else if (!sessionExists.get(w.userId, w.sessionId)) {
        throw new Error("the session has no stored state to keep");
      }
      rowWritten = state !== undefined || transcript !== undefined;
      setMarks.run(w.userId, w.sessionId, marks);
      if (transcript !== undefined) clearTails.run(w.userId, w.sessionId, 0);
      else if (tail) {
        clearTails.run(w.userId, w.sessionId, tail.from);
        addTail.run(w.userId, w.sessionId, tail.from, tail.messages);
      }
    }
    if (!rowWritten && (w.final || closedClean.has(key))) setClean.run(w.final ? 1 : 0, now, w.userId, w.sessionId);
    if (w.final) closedClean.add(key);
    else closedClean.delete(key);
    const changedAt = w.changedAt ?? now;
    if (w.run !== undefined) (w.batches.length ? setRun : setRunOnly).run(w.userId, w.sessionId, w.batches.length ? changedAt : now, w.run);
    else if (w.batches.length) touch.run(w.userId, w.sessionId, changedAt);
  }

  /** Which sessions now have enough old batches to prune. */
  function noteWritten(w: WriteOp, toPrune: Set<string>): void {
    const key = keyOf(w);
    if (w.remove) return void written.delete(key);
    if (w.markOpen) return;
    const entry = written.get(key) ?? { userId: w.userId, sessionId: w.sessionId, seq: 0, snapshotSeq: 0, prunedTo: 0, bytes: 0 };
    entry.seq = w.batches.at(-1)?.seq ?? entry.seq;
    for (const b of w.batches) entry.bytes += b.operations.length;
    if (w.snapshot?.state) entry.snapshotSeq = w.snapshot.state.seq;
    written.set(key, entry);
    const bytesToPrune = entry.bytes >= data.keptBytes / 2 && entry.snapshotSeq > entry.prunedTo;
    if (bytesToPrune || pruneLimit(entry) - entry.prunedTo >= PRUNE_SLACK) toPrune.add(key);
  }

  function pruneAll(keys: Set<string>): string | undefined {
    let problem: string | undefined;
    for (const key of keys) {
      const entry = written.get(key);
      if (!entry) continue;
      try {
        const { seq: bytesLimit } = overBytes.get(entry.userId, entry.sessionId, data.keptBytes) as { seq: number };
        const limit = Math.min(entry.snapshotSeq, Math.max(entry.seq - data.keptBatches, bytesLimit));
        prune.run(entry.userId, entry.sessionId, limit);
        entry.prunedTo = Math.max(entry.prunedTo, limit);
        entry.bytes = 0;
      } catch (error) {
        problem = `pruning old batches: ${(error as Error).message}`;
      }
    }
    return problem;
  }

  /** Another process held the lock at the last try: the next ones do not wait for it. */
  let locked = false;
  const setBusyWait = (ms: number) => db.exec(`PRAGMA busy_timeout = ${ms}`);

  /** Begins a transaction holding the file's write lock. */
  function begin(): void {
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (!locked) setBusyWait(0);
      locked = true;
      throw new DatabaseLockedError("the session database is locked by another process (a transaction is open on its file)");
    }
    if (locked) setBusyWait(LOCK_WAIT_MS);
    locked = false;
  }

  /** One transaction; a write that fails is rolled back alone (a savepoint each), the others stay. */
  function commit(writes: WriteOp[]): Omit<WriterReply, "id" | "transactions"> {
    const now = Date.now();
    const failed: { index: number; error: string }[] = [];
    try {
      begin();
      writes.forEach((w, index) => {
        savepoint.run();
        try {
          apply(w, now);
        } catch (error) {
          rollbackTo.run();
          failed.push({ index, error: (error as Error).message });
        }
        release.run();
      });
      db.exec("COMMIT");
      transactions++;
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      return { error: (error as Error).message, ...(error instanceof DatabaseLockedError && { locked: true as const }) };
    }
    let problem: string | undefined;
    if (writes.some((w) => w.remove)) {
      try {
        // Gives a deleted session's pages back to the file system (a no-op without auto_vacuum).
        db.exec("PRAGMA incremental_vacuum");
      } catch (error) {
        problem = `freeing a deleted session's space: ${(error as Error).message}`;
      }
    }
    const toPrune = new Set<string>();
    writes.forEach((w, index) => {
      if (!failed.some((f) => f.index === index)) noteWritten(w, toPrune);
    });
    problem = pruneAll(toPrune) ?? problem;
    return { ...(failed.length > 0 && { failed }), ...(problem && { problem }) };
  }

  port.on("message", (request: WriterRequest) => {
    if ("close" in request) {
      db.close();
      signal(done, request.id);
      port.close();
      return;
    }
    const outcome = commit(request.writes);
    signal(done, request.id, outcome.error !== undefined);
    port.postMessage({ id: request.id, transactions, ...outcome } satisfies WriterReply);
  });
}

/** Wakes the server's thread blocked on request `id` (see WriterData.done): handled, its transaction
 * `failed` or not; `last`: the thread handles no more. */
function signal(done: Int32Array, id: number, failed = false, last = false): void {
  if (failed) Atomics.store(done, 1, id);
  if (last) Atomics.store(done, 2, 1);
  Atomics.store(done, 0, id);
  Atomics.notify(done, 0);
}

/** The thread could not open the file: its first request fails with why, and the thread ends, so
 * that the next write starts another (a thread that died without answering would leave the server's
 * thread blocked in a read until its wait ran out). Requests sent meanwhile go unanswered: it says
 * it handles no more, and its end fails their writes. */
function refuse(data: WriterData, error: unknown): void {
  const port = parentPort!;
  port.once("message", (request: WriterRequest) => {
    signal(new Int32Array(data.done), request.id, true, true);
    port.postMessage({ id: request.id, transactions: 0, error: `cannot open the session database: ${(error as Error).message}` } satisfies WriterReply);
    port.close();
  });
}

const given = (workerData as { sqliteWriter?: WriterData } | undefined)?.sqliteWriter;
if (parentPort && given) {
  try {
    serve(given);
  } catch (error) {
    refuse(given, error);
  }
}
