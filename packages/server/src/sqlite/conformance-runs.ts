// The Open Harness API's conformance runs (open-harness/conformance): a row each, what the run came
// to and its events, kept per user, at most MAX_RUNS_PER_USER (the oldest go first). Written and
// read by the server's thread; a run is written once, as it ends.
import type { DatabaseSync } from "node:sqlite";
import { writing } from "./locked.ts";

export const MAX_RUNS_PER_USER = 50;

export type StoredRun = {
  id: string;
  userId: string;
  /** ms since the epoch. */
  runAt: number;
  /** What the run came to, as the API layer encodes it (JSON). */
  record: unknown;
};

export type ConformanceRunStore = {
  /** Keeps `run`, dropping the user's oldest past MAX_RUNS_PER_USER. Throws DatabaseLockedError
   * while another process holds the file's lock. */
  add(run: StoredRun): void;
  /** The user's runs, the newest first. */
  list(userId: string): StoredRun[];
  /** The user's run of that id. */
  get(userId: string, id: string): StoredRun | undefined;
};

type Row = { run_id: string; user_id: string; run_at: number; record: string };

/** A row whose record does not read as JSON (a damaged file) reads as an empty record. */
function rowOf(row: Row): StoredRun {
  let record: unknown = {};
  try {
    record = JSON.parse(row.record);
  } catch {
    // Left empty: the API layer reads its fields with defaults.
  }
  return { id: row.run_id, userId: row.user_id, runAt: row.run_at, record };
}

export function createConformanceRunStore(db: DatabaseSync): ConformanceRunStore {
  const COLUMNS = "run_id, user_id, run_at, record";
  const insert = db.prepare(`INSERT INTO conformance_runs (${COLUMNS}) VALUES (?, ?, ?, ?)`);
  const trim = db.prepare(
    `DELETE FROM conformance_runs WHERE user_id = ?1 AND run_id NOT IN
       (SELECT run_id FROM conformance_runs WHERE user_id = ?1 ORDER BY run_at DESC, rowid DESC LIMIT ?2)`,
  );
  const list = db.prepare(`SELECT ${COLUMNS} FROM conformance_runs WHERE user_id = ? ORDER BY run_at DESC, rowid DESC`);
  const get = db.prepare(`SELECT ${COLUMNS} FROM conformance_runs WHERE run_id = ? AND user_id = ?`);
  return {
    add: (run) =>
      writing(() => {
        db.exec("BEGIN IMMEDIATE");
        try {
          insert.run(run.id, run.userId, run.runAt, JSON.stringify(run.record));
          trim.run(run.userId, MAX_RUNS_PER_USER);
          db.exec("COMMIT");
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      }),
    list: (userId) => (list.all(userId) as unknown as Row[]).map(rowOf),
    get: (userId, id) => {
      const found = get.get(id, userId) as Row | undefined;
      return found && rowOf(found);
    },
  };
}
