// Session storage in one SQLite file (node:sqlite). Writes from every session are gathered and
// committed together, one transaction per turn of the event loop, so a busy server does a handful
// of transactions a second rather than one per delta.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { z } from "zod";
import { HarnessStateSchema, TranscriptMessageSchema, describeZodError } from "@harness/protocol";
import type { LoadedSession, SessionSnapshot, SessionStore, StoredBatch } from "@harness/session";

/** Batches kept per session for replay to reconnecting clients; older ones are pruned. */
export const KEPT_BATCHES = 5000;
/** Pruning runs once a session has this many batches beyond KEPT_BATCHES. */
const PRUNE_SLACK = 500;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  state TEXT NOT NULL,
  seq INTEGER NOT NULL,
  transcript TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  clean INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deltas (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ops TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id, seq)
) WITHOUT ROWID;
`;

const TranscriptSchema = z.array(TranscriptMessageSchema);

/** A SessionStore whose reads are synchronous. */
export type SqliteSessionStore = Omit<SessionStore, "load" | "readBatches"> & {
  load(): LoadedSession | undefined;
  readBatches(after: number): StoredBatch[];
};

export type SqliteDatabase = {
  /** The store of one session. */
  storeFor(userId: string, sessionId: string): SqliteSessionStore;
  /** Write transactions committed so far. */
  transactions(): number;
  /** Commits every write still waiting and closes the file. */
  close(): void;
};

type PendingWrite = {
  userId: string;
  sessionId: string;
  batches: readonly StoredBatch[];
  snapshot?: SessionSnapshot;
  final: boolean;
  resolve(): void;
  reject(error: unknown): void;
};

type SessionRow = { state: string; seq: number; transcript: string; clean: number };
type DeltaRow = { seq: number; ops: string };

function parseJson<T>(text: string, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`stored ${what} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`stored ${what} is invalid: ${describeZodError(parsed.error)}`);
  // The value as stored, not as parsed: parsing drops fields this version does not know.
  return value as T;
}

export function openSqliteDatabase(path: string, options: { onError?: (error: unknown) => void } = {}): SqliteDatabase {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
  db.exec(SCHEMA);
  const columns = db.prepare("SELECT name FROM pragma_table_info('sessions')").all() as { name: string }[];
  if (!columns.some((c) => c.name === "clean")) db.exec("ALTER TABLE sessions ADD COLUMN clean INTEGER NOT NULL DEFAULT 0");

  const selectSession = db.prepare("SELECT state, seq, transcript, clean FROM sessions WHERE user_id = ? AND session_id = ?");
  const markOpen = db.prepare("UPDATE sessions SET clean = 0 WHERE user_id = ? AND session_id = ?");
  const selectDeltas = db.prepare("SELECT seq, ops FROM deltas WHERE user_id = ? AND session_id = ? AND seq > ? ORDER BY seq");
  const insertDelta = db.prepare("INSERT OR REPLACE INTO deltas (user_id, session_id, seq, ops) VALUES (?, ?, ?, ?)");
  const upsertSession = db.prepare(
    `INSERT INTO sessions (user_id, session_id, state, seq, transcript, updated_at, clean) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET state = excluded.state, seq = excluded.seq,
       transcript = excluded.transcript, updated_at = excluded.updated_at, clean = excluded.clean`,
  );
  const touchSession = db.prepare("UPDATE sessions SET updated_at = ?, clean = ? WHERE user_id = ? AND session_id = ?");
  const prune = db.prepare("DELETE FROM deltas WHERE user_id = ? AND session_id = ? AND seq <= ?");

  let pending: PendingWrite[] = [];
  let scheduled = false;
  let closed = false;
  const written = new Map<string, { seq: number; snapshotSeq: number; prunedTo: number }>();
  let transactions = 0;
  const toPrune = new Set<string>();

  function commit(): void {
    scheduled = false;
    const writes = pending;
    pending = [];
    if (writes.length === 0) return;
    const now = Date.now();
    try {
      db.exec("BEGIN");
      for (const w of writes) {
        for (const b of w.batches) insertDelta.run(w.userId, w.sessionId, b.seq, b.operations);
        const clean = w.final ? 1 : 0;
        if (w.snapshot) {
          const { state, seq, transcript } = w.snapshot;
          upsertSession.run(w.userId, w.sessionId, JSON.stringify(state), seq, JSON.stringify(transcript), now, clean);
        } else if (w.batches.length || w.final) {
          touchSession.run(now, clean, w.userId, w.sessionId);
        }
      }
      db.exec("COMMIT");
      transactions++;
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      for (const w of writes) w.reject(error);
      return;
    }
    for (const w of writes) {
      noteWritten(w);
      w.resolve();
    }
    if (toPrune.size) setTimeout(pruneSome, 0).unref();
  }

  function noteWritten(w: PendingWrite): void {
    const key = `${w.userId}\0${w.sessionId}`;
    const entry = written.get(key) ?? { seq: 0, snapshotSeq: 0, prunedTo: 0 };
    entry.seq = w.batches.at(-1)?.seq ?? entry.seq;
    if (w.snapshot) entry.snapshotSeq = w.snapshot.seq;
    written.set(key, entry);
    if (pruneLimit(entry) - entry.prunedTo >= PRUNE_SLACK) toPrune.add(key);
  }

  // Batches after the snapshot are needed to load the session, so they are never pruned.
  function pruneLimit(entry: { seq: number; snapshotSeq: number }): number {
    return Math.min(entry.seq - KEPT_BATCHES, entry.snapshotSeq);
  }

  function pruneSome(): void {
    if (closed) return;
    for (const key of toPrune) {
      toPrune.delete(key);
      const entry = written.get(key);
      if (!entry) continue;
      const [userId, sessionId] = key.split("\0");
      const limit = pruneLimit(entry);
      try {
        prune.run(userId, sessionId, limit);
        entry.prunedTo = limit;
      } catch (error) {
        options.onError?.(error);
      }
    }
  }

  function enqueue(write: Omit<PendingWrite, "resolve" | "reject">): Promise<void> {
    if (closed) return Promise.reject(new Error("the session database is closed"));
    return new Promise<void>((resolve, reject) => {
      pending.push({ ...write, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(commit);
      }
    });
  }

  function rows<T>(statement: StatementSync, ...params: (string | number)[]): T[] {
    return statement.all(...params) as unknown as T[];
  }

  function storeFor(userId: string, sessionId: string): SqliteSessionStore {
    return {
      load(): LoadedSession | undefined {
        const row = selectSession.get(userId, sessionId) as SessionRow | undefined;
        if (!row) return undefined;
        const where = `session ${userId}/${sessionId}`;
        const snapshot: SessionSnapshot = {
          state: parseJson(row.state, HarnessStateSchema, `state of ${where}`),
          seq: row.seq,
          transcript: parseJson(row.transcript, TranscriptSchema, `transcript of ${where}`),
        };
        const batches = rows<DeltaRow>(selectDeltas, userId, sessionId, row.seq).map((r) => ({ seq: r.seq, operations: r.ops }));
        if (row.clean) markOpen.run(userId, sessionId);
        return { snapshot, batches, clean: row.clean === 1 };
      },
      write(batches, snapshot, writeOptions) {
        return enqueue({ userId, sessionId, batches, snapshot, final: writeOptions?.final === true });
      },
      readBatches(after) {
        return rows<DeltaRow>(selectDeltas, userId, sessionId, after).map((r) => ({ seq: r.seq, operations: r.ops }));
      },
    };
  }

  return {
    storeFor,
    transactions: () => transactions,
    close() {
      if (closed) return;
      commit();
      closed = true;
      db.close();
    },
  };
}
