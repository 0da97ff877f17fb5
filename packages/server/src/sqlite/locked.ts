// The session database's file held by another process (a backup tool, the sqlite3 shell inside a
// transaction). The server's thread does not wait for such a lock: a write it would make itself
// (the catalog's) fails after MAIN_BUSY_MS with this error, which the HTTP routes answer 503. The
// writer thread fails its transactions at once too (writer.ts); the sessions keep those
// writes and send them again until the lock is gone.

/** How long the server's own connection waits for the file's write lock: long enough to get past
 * the writer thread's commits, short enough not to stall the event loop. */
export const MAIN_BUSY_MS = 100;

export class DatabaseLockedError extends Error {
  constructor(message = "the session database is locked by another process (a transaction is open on its file): try again once it is released") {
    super(message);
    this.name = "DatabaseLockedError";
  }
}

/** SQLite's SQLITE_BUSY (5), extended codes included, as node:sqlite reports it. */
export function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | undefined)?.errcode;
  return typeof code === "number" && (code & 0xff) === 5;
}

/** `error` as DatabaseLockedError when it is the file's lock, else unchanged. */
export function lockedOr(error: unknown): unknown {
  return error instanceof DatabaseLockedError || !isBusy(error) ? error : new DatabaseLockedError();
}

/** Makes the write `write`, its failure on the file's lock thrown as DatabaseLockedError. */
export function writing<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw lockedOr(error);
  }
}
