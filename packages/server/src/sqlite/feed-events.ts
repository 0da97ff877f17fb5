// The Open Harness event feed's events other than executions' (open-harness/event-store.ts), in the
// session database: a row each, written by the server's thread as the event is recorded (one small
// insert), read back after a restart. A row's number is the store's, counting up across restarts;
// its time and data are the event's as the feed told them. What is kept is decided by the caller
// (which passes its bounds to every read, and prunes now and then): rows past them are never read.
import { DatabaseSync } from "node:sqlite";
import { writing } from "./locked.ts";

/** How long the feed's events are kept, and the most kept of a user (the newest). */
export const KEEP_FEED_MS = 7 * 24 * 60 * 60_000;
export const MAX_FEED_PER_USER = 10_000;

/** The table, as schema.ts makes it in the session database (and a memory database for a store of
 * its own). The index serves a user's reads, newest first (`number` is the rowid), and the pruning. */
export const FEED_EVENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS feed_events (
  number INTEGER PRIMARY KEY,
  user_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feed_events_by_user ON feed_events (user_id, at);
CREATE INDEX IF NOT EXISTS feed_events_by_time ON feed_events (at);
`;

export type FeedRow = {
  number: number;
  userId: string;
  /** ms since the epoch. */
  at: number;
  type: string;
  /** The event's data as JSON. */
  data: string;
};

/** Which of a user's rows a read takes: those from `keptFrom` (ms) on, of the user's newest `max`;
 * of those, of `type` only, and after `since` (ms) only, when given. */
export type FeedQuery = { keptFrom: number; max: number; type?: string; since?: number };

export type FeedRows = {
  /** Writes the rows in one transaction; a row whose number is stored already is left as it is.
   * Throws DatabaseLockedError while another process holds the file's lock, like every write below. */
  add(rows: readonly FeedRow[]): void;
  /** The rows `query` takes, the newest first, at most `limit`. */
  list(userId: string, query: FeedQuery, limit?: number): FeedRow[];
  /** How many rows `query` takes. */
  count(userId: string, query: FeedQuery): number;
  /** The highest number stored; 0 when none is. */
  lastNumber(): number;
  /** The time of the user's latest row; 0 when there is none. */
  lastAt(userId: string): number;
  /** Deletes every user's rows from before `before` (ms). */
  prune(before: number): void;
  /** Deletes the user's rows past their newest `max`. */
  trim(userId: string, max: number): void;
};

/** A memory database holding only the table: a store that outlives nothing. */
export function memoryFeedDatabase(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec(FEED_EVENTS_SCHEMA);
  return db;
}

type Row = { number: number; user_id: string; at: number; type: string; data: string };
const rowOf = (r: Row): FeedRow => ({ number: Number(r.number), userId: r.user_id, at: Number(r.at), type: r.type, data: r.data });

export function createFeedRows(db: DatabaseSync): FeedRows {
  const NEWEST = "ORDER BY at DESC, number DESC";
  // The oldest row of the user's newest `max` (none while they have fewer): the reads take those
  // from it on, so that rows not yet trimmed are not seen.
  const boundary = db.prepare(`SELECT at, number FROM feed_events WHERE user_id = ? AND at >= ? ${NEWEST} LIMIT 1 OFFSET ?`);
  const WHERE = "user_id = ?1 AND at >= ?2 AND (at, number) >= (?3, ?4) AND (?5 IS NULL OR type = ?5) AND (?6 IS NULL OR at > ?6)";
  const list = db.prepare(`SELECT number, user_id, at, type, data FROM feed_events WHERE ${WHERE} ${NEWEST} LIMIT ?7`);
  const count = db.prepare(`SELECT COUNT(*) AS n FROM feed_events WHERE ${WHERE}`);
  const insert = db.prepare("INSERT OR IGNORE INTO feed_events (number, user_id, at, type, data) VALUES (?, ?, ?, ?, ?)");
  const lastNumber = db.prepare("SELECT MAX(number) AS n FROM feed_events");
  const lastAt = db.prepare("SELECT MAX(at) AS at FROM feed_events WHERE user_id = ?");
  const prune = db.prepare("DELETE FROM feed_events WHERE at < ?");
  const trim = db.prepare(
    `DELETE FROM feed_events WHERE user_id = ?1 AND (at, number) <
       (SELECT at, number FROM feed_events WHERE user_id = ?1 ${NEWEST} LIMIT 1 OFFSET ?2 - 1)`,
  );

  function params(userId: string, query: FeedQuery): (string | number | null)[] {
    const first = boundary.get(userId, query.keptFrom, query.max - 1) as { at: number; number: number } | undefined;
    return [userId, query.keptFrom, first?.at ?? 0, first?.number ?? 0, query.type ?? null, query.since ?? null];
  }

  return {
    add: (rows) =>
      writing(() => {
        if (rows.length === 1) {
          const [r] = rows;
          insert.run(r.number, r.userId, r.at, r.type, r.data);
          return;
        }
        db.exec("BEGIN IMMEDIATE");
        try {
          for (const r of rows) insert.run(r.number, r.userId, r.at, r.type, r.data);
          db.exec("COMMIT");
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      }),
    list: (userId, query, limit = query.max) => (list.all(...params(userId, query), limit) as unknown as Row[]).map(rowOf),
    count: (userId, query) => Number((count.get(...params(userId, query)) as { n: number }).n),
    lastNumber: () => Number((lastNumber.get() as { n: number | null }).n ?? 0),
    lastAt: (userId) => Number((lastAt.get(userId) as { at: number | null }).at ?? 0),
    prune: (before) => writing(() => prune.run(before)),
    trim: (userId, max) => writing(() => trim.run(userId, max)),
  };
}
