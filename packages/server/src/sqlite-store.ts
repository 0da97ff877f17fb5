// Session storage in one SQLite file (node:sqlite). Writes from every session are gathered and
// committed together, one transaction per turn of the event loop, so a busy server does a handful
// of transactions a second rather than one per delta.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { z } from "zod";
import { HarnessStateSchema, TranscriptMessageSchema, describeZodError } from "@harness/protocol";
import type { LoadedSession, RunRecord, SessionSnapshot, SessionStore, StoredBatch } from "@harness/session";
import { sessionKey } from "./ids.ts";
import { createCatalog, type SessionCatalog } from "./sqlite-catalog.ts";

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
CREATE TABLE IF NOT EXISTS runners (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  pid INTEGER NOT NULL,
  url TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS activity (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  run TEXT,
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

// What changes with every write (the time of the last change, the run record) lives in the small
// "activity" row, not in the session row: rewriting a session row rewrites its whole state and
// transcript, which a hundred streaming sessions cannot afford a couple of thousand times a second.

/** Columns added after the first version, with their definitions. */
const ADDED_COLUMNS: [string, string][] = [
  ["clean", "INTEGER NOT NULL DEFAULT 0"],
  ["run", "TEXT"],
  ["marks", "TEXT"],
  ["title", "TEXT"],
  ["created_at", "INTEGER"],
];

const TranscriptSchema = z.array(TranscriptMessageSchema);
const MarksSchema = z.record(z.string(), z.number().int().nonnegative());
const RunRecordSchema: z.ZodType<RunRecord> = z.object({
  requestId: z.string().optional(),
  lastEventSeq: z.number().int().nonnegative(),
  prompt: z.string(),
  userMessageId: z.string(),
  assistantMessageId: z.string(),
  afterTool: z.boolean(),
});

/** A SessionStore whose reads are synchronous. */
export type SqliteSessionStore = Omit<SessionStore, "load" | "readBatches"> & {
  load(): LoadedSession | undefined;
  readBatches(after: number): StoredBatch[];
};

export type SqliteDatabase = {
  /** The store of one session. */
  storeFor(userId: string, sessionId: string): SqliteSessionStore;
  /** A session as stored, without marking it open (for copies: resume and fork). */
  readSession(userId: string, sessionId: string): LoadedSession | undefined;
  /** Deletes a session's rows, after every write queued before. */
  deleteSession(userId: string, sessionId: string): Promise<void>;
  /** Sessions whose last stored batch left a run in flight. */
  sessionsWithRun(): { userId: string; sessionId: string }[];
  /** Listing, creating and renaming sessions; the runner process of each session. */
  catalog: SessionCatalog;
  /** Write transactions committed so far. */
  transactions(): number;
  /** Commits every write still waiting and closes the file. */
  close(): void;
};

/** Writes wait this long to share a transaction with the writes of other sessions: a commit costs
 * a few hundred microseconds of the event loop, and a hundred streaming sessions would otherwise
 * commit a couple of thousand times a second. */
const COMMIT_DELAY_MS = 20;

type PendingWrite = {
  userId: string;
  sessionId: string;
  batches: readonly StoredBatch[];
  snapshot?: SessionSnapshot;
  final: boolean;
  run?: RunRecord | null;
  /** Deletes the session instead. */
  remove?: true;
  resolve(): void;
  reject(error: unknown): void;
};

type SessionRow = { state: string; seq: number; transcript: string; clean: number; run: string | null; marks: string | null };
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
  const columns = new Set((db.prepare("SELECT name FROM pragma_table_info('sessions')").all() as { name: string }[]).map((c) => c.name));
  for (const [name, definition] of ADDED_COLUMNS) if (!columns.has(name)) db.exec(`ALTER TABLE sessions ADD COLUMN ${name} ${definition}`);
  // Run records written by versions that kept them in the session row move to the activity row.
  db.exec(`INSERT OR IGNORE INTO activity (user_id, session_id, updated_at, run)
             SELECT user_id, session_id, updated_at, run FROM sessions WHERE run IS NOT NULL;
           UPDATE sessions SET run = NULL WHERE run IS NOT NULL;`);

  const selectSession = db.prepare(
    `SELECT s.state, s.seq, s.transcript, s.clean, a.run, s.marks FROM sessions s
       LEFT JOIN activity a ON a.user_id = s.user_id AND a.session_id = s.session_id
     WHERE s.user_id = ? AND s.session_id = ?`,
  );
  const markOpen = db.prepare("UPDATE sessions SET clean = 0 WHERE user_id = ? AND session_id = ?");
  const selectDeltas = db.prepare("SELECT seq, ops FROM deltas WHERE user_id = ? AND session_id = ? AND seq > ? ORDER BY seq");
  const insertDelta = db.prepare("INSERT OR REPLACE INTO deltas (user_id, session_id, seq, ops) VALUES (?, ?, ?, ?)");
  const upsertSession = db.prepare(
    `INSERT INTO sessions (user_id, session_id, state, seq, transcript, marks, updated_at, created_at, clean) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET state = excluded.state, seq = excluded.seq,
       transcript = excluded.transcript, marks = excluded.marks, updated_at = excluded.updated_at, clean = excluded.clean`,
  );
  const setClean = db.prepare("UPDATE sessions SET clean = ?, updated_at = ? WHERE user_id = ? AND session_id = ?");
  const touch = db.prepare(
    `INSERT INTO activity (user_id, session_id, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at`,
  );
  const setRun = db.prepare(
    `INSERT INTO activity (user_id, session_id, updated_at, run) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at, run = excluded.run`,
  );
  const removeActivity = db.prepare("DELETE FROM activity WHERE user_id = ? AND session_id = ?");
  const prune = db.prepare("DELETE FROM deltas WHERE user_id = ? AND session_id = ? AND seq <= ?");
  const removeSession = db.prepare("DELETE FROM sessions WHERE user_id = ? AND session_id = ?");
  const removeDeltas = db.prepare("DELETE FROM deltas WHERE user_id = ? AND session_id = ?");
  const removeRunner = db.prepare("DELETE FROM runners WHERE user_id = ? AND session_id = ?");
  const selectWithRun = db.prepare(
    `SELECT a.user_id, a.session_id FROM activity a
       JOIN sessions s ON s.user_id = a.user_id AND s.session_id = a.session_id
     WHERE a.run IS NOT NULL`,
  );

  let pending: PendingWrite[] = [];
  let scheduled = false;
  let closed = false;
  const written = new Map<string, { seq: number; snapshotSeq: number; prunedTo: number }>();
  let transactions = 0;
  /** Sessions whose row says "closed cleanly": the next write that is not final says otherwise. */
  const closedClean = new Set<string>();
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
        if (w.remove) {
          removeSession.run(w.userId, w.sessionId);
          removeDeltas.run(w.userId, w.sessionId);
          removeRunner.run(w.userId, w.sessionId);
          removeActivity.run(w.userId, w.sessionId);
          closedClean.delete(sessionKey(w.userId, w.sessionId));
          continue;
        }
        for (const b of w.batches) insertDelta.run(w.userId, w.sessionId, b.seq, b.operations);
        const key = sessionKey(w.userId, w.sessionId);
        if (w.snapshot) {
          const { state, seq, transcript, marks } = w.snapshot;
          upsertSession.run(w.userId, w.sessionId, JSON.stringify(state), seq, JSON.stringify(transcript), JSON.stringify(marks ?? {}), now, now, w.final ? 1 : 0);
        } else if (w.final || closedClean.has(key)) {
          setClean.run(w.final ? 1 : 0, now, w.userId, w.sessionId);
        }
        if (w.final) closedClean.add(key);
        else closedClean.delete(key);
        if (w.run !== undefined) setRun.run(w.userId, w.sessionId, now, w.run === null ? null : JSON.stringify(w.run));
        else if (w.batches.length) touch.run(w.userId, w.sessionId, now);
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
    const key = sessionKey(w.userId, w.sessionId);
    if (w.remove) {
      written.delete(key);
      toPrune.delete(key);
      return;
    }
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
        setTimeout(commit, COMMIT_DELAY_MS);
      }
    });
  }

  function rows<T>(statement: StatementSync, ...params: (string | number)[]): T[] {
    return statement.all(...params) as unknown as T[];
  }

  function read(userId: string, sessionId: string): (LoadedSession & { row: SessionRow }) | undefined {
    const row = selectSession.get(userId, sessionId) as SessionRow | undefined;
    if (!row) return undefined;
    const where = `session ${userId}/${sessionId}`;
    const snapshot: SessionSnapshot = {
      state: parseJson(row.state, HarnessStateSchema, `state of ${where}`),
      seq: row.seq,
      transcript: parseJson(row.transcript, TranscriptSchema, `transcript of ${where}`),
      marks: row.marks ? parseJson(row.marks, MarksSchema, `marks of ${where}`) : {},
    };
    const batches = rows<DeltaRow>(selectDeltas, userId, sessionId, row.seq).map((r) => ({ seq: r.seq, operations: r.ops }));
    const loaded: LoadedSession & { row: SessionRow } = { snapshot, batches, clean: row.clean === 1, row };
    if (row.run) loaded.run = parseJson(row.run, RunRecordSchema, `run record of ${where}`);
    return loaded;
  }

  function storeFor(userId: string, sessionId: string): SqliteSessionStore {
    return {
      load(): LoadedSession | undefined {
        const found = read(userId, sessionId);
        if (!found) return undefined;
        const { row, ...loaded } = found;
        if (row.clean) markOpen.run(userId, sessionId);
        closedClean.delete(sessionKey(userId, sessionId));
        return loaded;
      },
      write(batches, snapshot, writeOptions) {
        return enqueue({ userId, sessionId, batches, snapshot, final: writeOptions?.final === true, run: writeOptions?.run });
      },
      readBatches(after) {
        return rows<DeltaRow>(selectDeltas, userId, sessionId, after).map((r) => ({ seq: r.seq, operations: r.ops }));
      },
    };
  }

  return {
    storeFor,
    readSession(userId, sessionId) {
      const found = read(userId, sessionId);
      if (!found) return undefined;
      const { row: _row, ...loaded } = found;
      return loaded;
    },
    deleteSession: (userId, sessionId) => enqueue({ userId, sessionId, batches: [], final: false, remove: true }),
    sessionsWithRun: () =>
      rows<{ user_id: string; session_id: string }>(selectWithRun).map((r) => ({ userId: r.user_id, sessionId: r.session_id })),
    catalog: createCatalog(db),
    transactions: () => transactions,
    close() {
      if (closed) return;
      commit();
      closed = true;
      db.close();
    },
  };
}
