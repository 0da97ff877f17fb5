// Reading a harness server's session database (harness.db in its data directory) from a test.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** The last batch the server has stored for a session; -1 when none is. */
export function storedSeq(dataDir: string, ids: { userId: string; sessionId: string }): number {
  const db = new DatabaseSync(join(dataDir, "harness.db"), { readOnly: true });
  try {
    const row = db.prepare("SELECT MAX(seq) AS seq FROM deltas WHERE user_id = ? AND session_id = ?").get(ids.userId, ids.sessionId) as { seq: number | null };
    return row.seq ?? -1;
  } finally {
    db.close();
  }
}

/** The process id of the runner the server records as serving a session; undefined when none is. */
export function storedRunnerPid(dataDir: string, ids: { userId: string; sessionId: string }): number | undefined {
  const db = new DatabaseSync(join(dataDir, "harness.db"), { readOnly: true });
  try {
    const row = db.prepare("SELECT pid FROM runners WHERE user_id = ? AND session_id = ?").get(ids.userId, ids.sessionId) as { pid: number } | undefined;
    return row?.pid;
  } finally {
    db.close();
  }
}
