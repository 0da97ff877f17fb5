// The Open Harness API's executions as stored, in the session database: a row each, written by the
// server's thread (a few writes per execution: when it starts, when it runs, when it ends), read
// back after a restart. What a record holds is the API layer's (open-harness/executions.ts): here
// it is text. Kept an hour after they end and at most MAX_KEPT_PER_USER a user, the oldest ended
// going first; those past their hour are neither read nor kept (the next write of anyone's drops them).
import type { DatabaseSync } from "node:sqlite";
import { lockedOr } from "./locked.ts";

/** How long an ended execution is kept, and the most a user has kept (the oldest ended go first). */
export const KEEP_ENDED_MS = 60 * 60 * 1000;
export const MAX_KEPT_PER_USER = 1000;

export type ExecutionRow = {
  id: string;
  userId: string;
  sessionId: string;
  /** Times in ms since the epoch; `endedAt` undefined while it runs. */
  startedAt: number;
  endedAt?: number;
  /** The API layer's status word, readable without the record. */
  status: string;
  record: string;
};
/** A row without its record (which can be large: every event of the run). */
export type ExecutionSummary = Omit<ExecutionRow, "record">;

export type ExecutionStore = {
  /** Writes the row (the whole of it), and drops the user's rows past their keeping. Throws
   * DatabaseLockedError while another process holds the file's lock. */
  put(row: ExecutionRow): void;
  /** The user's execution of that id, while kept. */
  get(userId: string, id: string): ExecutionRow | undefined;
  /** The user's kept executions, the most recently started first, without their records. */
  list(userId: string): ExecutionSummary[];
  /** Executions that never ended (their server died under them), of every user. */
  unended(): ExecutionRow[];
};

/** The latest time a Date holds, in ms since the epoch. */
const MAX_DATE_MS = 8.64e15;

type SummaryRow = { execution_id: string; user_id: string; session_id: string; started_at: number; ended_at: number | null; status: string };
type Row = SummaryRow & { record: string };

const summaryOf = (r: SummaryRow): ExecutionSummary => ({
  id: r.execution_id,
  userId: r.user_id,
  sessionId: r.session_id,
  startedAt: r.started_at,
  ...(r.ended_at !== null && { endedAt: r.ended_at }),
  status: r.status,
});
const rowOf = (r: Row): ExecutionRow => ({ ...summaryOf(r), record: r.record });

/** `now`: the clock (tests move it). */
export function createExecutionStore(db: DatabaseSync, now: () => number = Date.now): ExecutionStore {
  const SUMMARY = "execution_id, user_id, session_id, started_at, ended_at, status";
  const COLUMNS = `${SUMMARY}, record`;
  // A row whose times are not whole milliseconds a date can hold (a damaged file) is not read: one
  // such would take every list of its user down. It goes with its user's next write.
  const time = (column: string) => `(typeof(${column}) = 'integer' AND ${column} BETWEEN 0 AND ${MAX_DATE_MS})`;
  const READABLE = `${time("started_at")} AND (ended_at IS NULL OR ${time("ended_at")})`;
  const KEPT = `${READABLE} AND (ended_at IS NULL OR ended_at >= ?)`;
  const upsert = db.prepare(
    `INSERT INTO executions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (execution_id) DO UPDATE SET ended_at = excluded.ended_at, status = excluded.status, record = excluded.record`,
  );
  // Those past their hour go whoever's they are (by executions_by_end): a user who comes no more
  // leaves none behind; the unreadable go with their user's next write.
  const expire = db.prepare("DELETE FROM executions WHERE ended_at < ?");
  const dropUnreadable = db.prepare(`DELETE FROM executions WHERE user_id = ? AND NOT (${READABLE})`);
  const count = db.prepare("SELECT COUNT(*) AS n FROM executions WHERE user_id = ?");
  const dropOldest = db.prepare(
    `DELETE FROM executions WHERE execution_id IN
       (SELECT execution_id FROM executions WHERE user_id = ? AND ended_at IS NOT NULL ORDER BY ended_at, started_at LIMIT ?)`,
  );
  const get = db.prepare(`SELECT ${COLUMNS} FROM executions WHERE execution_id = ? AND user_id = ? AND ${KEPT}`);
  const list = db.prepare(`SELECT ${SUMMARY} FROM executions WHERE user_id = ? AND ${KEPT} ORDER BY started_at DESC, rowid DESC`);
  const unended = db.prepare(`SELECT ${COLUMNS} FROM executions WHERE ended_at IS NULL ORDER BY started_at`);

  return {
    put(row) {
      try {
        db.exec("BEGIN IMMEDIATE");
        try {
          upsert.run(row.id, row.userId, row.sessionId, row.startedAt, row.endedAt ?? null, row.status, row.record);
          expire.run(now() - KEEP_ENDED_MS);
          dropUnreadable.run(row.userId);
          const { n } = count.get(row.userId) as { n: number };
          if (n > MAX_KEPT_PER_USER) dropOldest.run(row.userId, n - MAX_KEPT_PER_USER);
          db.exec("COMMIT");
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      } catch (error) {
        throw lockedOr(error);
      }
    },
    get: (userId, id) => {
      const found = get.get(id, userId, now() - KEEP_ENDED_MS) as Row | undefined;
      return found && rowOf(found);
    },
    list: (userId) => (list.all(userId, now() - KEEP_ENDED_MS) as unknown as SummaryRow[]).map(summaryOf),
    unended: () => (unended.all() as unknown as Row[]).map(rowOf),
  };
}
