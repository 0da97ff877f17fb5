// Whether the last server to use the database closed it. A server that dies with writes still queued
// may have sent a new session's first batches to clients without the file ever holding the session;
// a session made later under that id must not number its batches from 0 again, or a client that
// kept seq 3 would take the new session's batch 4 as following it. So while a server has the file
// open, the file says so; opening a file that still says so raises, for good, the seq that sessions
// the file does not hold start after.
//
// A stored session that such a server opened may have gone on sending batches that never reached the
// file, even though its row still says it was closed cleanly (another process held the file's lock,
// so the row could not be marked open). So after a death, no row written before it is taken for
// closed cleanly; and a session loaded after a death numbers on past the floor as well as past its
// own seq: the floor rises at every death by more than one server can have sent unstored, so two
// servers that each loaded it from the same stored seq never hand out the same numbers.
//
// Which rows are trusted is counted in openings, not time: each server that opens the file is the
// next opening; a row says which one closed it cleanly (sessions.closed_by, written only with
// clean), and after a death only those closed by the opening that noticed it, or a later one, are
// trusted. Other writes to the row (a rename) change nothing of that, and no clock is read.
import type { DatabaseSync } from "node:sqlite";
import { SEQ_JUMP_AFTER_CRASH } from "@harness/session";

type Mark = { open: number; floor: number; opened: number; trusted_from: number };

export type OpenMark = {
  /** The seq that sessions never stored start after (0 until a server died with the file open, or a
   * deleted session was forgotten); stored sessions loaded after a death jump past it too. */
  floor: number;
  /** This opening's number: the rows this server closes cleanly say it. */
  opening: number;
  /** A row saying "closed cleanly" by an opening before this one is not trusted to. */
  trustedFrom: number;
};

/** How long the ids of deleted sessions, with the last seq each reached, are kept: meanwhile a client
 * of a deleted session that comes back is told it was deleted. One deleted longer ago is forgotten
 * as the file is opened, and the floor raised past its seq instead: such a client then gets the
 * state of a new session of that id, never batches it would take as following its own. Without
 * that, the ids of every session ever deleted would pile up for good. */
export const DELETED_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/** Records that a server has the file open. */
export function markOpen(db: DatabaseSync, now = Date.now()): OpenMark {
  db.exec("BEGIN IMMEDIATE");
  try {
    const row = db.prepare("SELECT open, floor, opened, trusted_from FROM open_mark WHERE id = 1").get() as Mark | undefined;
    // Those deleted by versions that did not say when count from now.
    db.prepare("UPDATE deleted_sessions SET deleted_at = ? WHERE deleted_at IS NULL").run(now);
    const expired = db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM deleted_sessions WHERE deleted_at < ?").get(now - DELETED_KEPT_MS) as { seq: number };
    db.prepare("DELETE FROM deleted_sessions WHERE deleted_at < ?").run(now - DELETED_KEPT_MS);
    const floor = Math.max((row?.floor ?? 0) + (row?.open === 1 ? SEQ_JUMP_AFTER_CRASH : 0), expired.seq);
    const opening = (row?.opened ?? 0) + 1;
    const trustedFrom = row?.open === 1 ? opening : (row?.trusted_from ?? 0);
    db.prepare(
      `INSERT INTO open_mark (id, open, floor, opened, trusted_from) VALUES (1, 1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET open = 1, floor = excluded.floor, opened = excluded.opened, trusted_from = excluded.trusted_from`,
    ).run(floor, opening, trustedFrom);
    db.exec("COMMIT");
    return { floor, opening, trustedFrom };
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/** Records that the server closed the file, every write of it stored. */
export function markClosed(db: DatabaseSync): void {
  db.prepare("UPDATE open_mark SET open = 0 WHERE id = 1").run();
}
