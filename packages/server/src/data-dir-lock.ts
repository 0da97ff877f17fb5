// One server per data directory. Two servers on one directory would each keep their own copy of a
// session and overwrite the other's writes, adopt and stop each other's runners. The lock is a
// file naming the holder's pid (and, on Linux, when that process started, so that a pid the
// system gave to another process since does not count); a holder that is gone leaves a stale lock,
// which the next server takes over.
import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pidAlive, procStatFields } from "@harness/agent/pid-alive";

export const LOCK_FILE = "server.lock";

type Holder = { pid: number; started?: string };

export type DataDirLock = { release(): void };

/** Another live server holds the data directory. `way` is the setting that names another
 * directory, as the caller was given it (the environment's, unless a flag was used). */
export class DataDirTakenError extends Error {
  readonly pid: number;
  readonly dir: string;
  constructor(pid: number, dir: string, way = "HARNESS_DATA_DIR") {
    super(`another Harness server (pid ${pid}) is using the data directory ${dir}: stop it, or give this one another ${way}`);
    this.name = "DataDirTakenError";
    this.pid = pid;
    this.dir = dir;
  }
}

/** How long a server waits for another that is taking over a stale lock, and after how long a
 * takeover guard is taken for the leftover of a server that died during one. */
const TAKEOVER_WAIT_MS = 2000;
const TAKEOVER_STALE_MS = 10_000;

/** Takes the data directory `dir`, or throws DataDirTakenError naming the server that holds it.
 * A lock that cannot be written at all (a read-only or another user's directory, a full disk)
 * throws what `unwritable` makes of the file system's error. */
export function lockDataDir(dir: string, unwritable: (error: NodeJS.ErrnoException) => Error = (error) => error): DataDirLock {
  try {
    return takeLock(dir);
  } catch (error) {
    if (error instanceof DataDirTakenError || typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
    throw unwritable(error as NodeJS.ErrnoException);
  }
}

function takeLock(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE);
  const own: Holder = { pid: process.pid, ...withStart(process.pid) };
  const text = `${JSON.stringify(own)}\n`;
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  while (!tryCreate(path, text)) {
    const holder = readHolder(path);
    if (holder && holdsIt(holder)) throw new DataDirTakenError(holder.pid, dir);
    // Stale: its server is gone (or unreadable, as a crash while writing it leaves it). Servers
    // starting together would each remove the stale lock, and one could remove the lock another
    // had just made: one at a time, under a guard, the lock is looked at again and replaced.
    if (takeOver(path, text)) break;
    if (Date.now() > deadline) throw new Error(`the data directory ${dir} is being taken over by another Harness server; try again`);
    sleepSync(20);
  }
  return {
    release() {
      try {
        if (readFileSync(path, "utf8") === text) unlinkSync(path);
      } catch {
        // Already gone.
      }
    },
  };
}

/** Creates the lock with `text` in it; false when there is one already. The text is written to a
 * file of this process's own and linked into place, so that no other server ever reads the lock
 * empty (before its text is written) and takes it for a stale one. */
function tryCreate(path: string, text: string): boolean {
  const own = `${path}.${process.pid}.tmp`;
  writeFileSync(own, text, { mode: 0o600 });
  try {
    linkSync(own, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    // A file system without hard links: created, then written.
    return createThenWrite(path, text);
  } finally {
    unlinkSync(own);
  }
}

function createThenWrite(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Replaces a stale lock with this server's, under the takeover guard: false when another server
 * holds the guard (the caller looks at the lock again) or the lock is no longer stale. */
function takeOver(path: string, text: string): boolean {
  const guard = `${path}.takeover`;
  if (!tryCreate(guard, text)) {
    try {
      if (Date.now() - statSync(guard).mtimeMs > TAKEOVER_STALE_MS) unlinkSync(guard);
    } catch {
      // Gone meanwhile.
    }
    return false;
  }
  try {
    const holder = readHolder(path);
    if (holder && holdsIt(holder)) return false;
    try {
      unlinkSync(path);
    } catch {
      // Gone meanwhile.
    }
    return tryCreate(path, text);
  } finally {
    unlinkSync(guard);
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readHolder(path: string): Holder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<Holder>;
    return Number.isSafeInteger(value.pid) && value.pid! > 0 ? { pid: value.pid!, ...(typeof value.started === "string" && { started: value.started }) } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote `holder` still runs. This process never does: a lock with its
 * pid was left by an earlier life of a container, or by a server of this process that did not
 * close (tests of crashes). */
function holdsIt(holder: Holder): boolean {
  if (holder.pid === process.pid || !pidAlive(holder.pid)) return false;
  const now = withStart(holder.pid).started;
  return holder.started === undefined || now === undefined || now === holder.started;
}

/** When process `pid` started, in clock ticks since boot (Linux), to tell it from a later one
 * with the same pid. */
export function withStart(pid: number): { started?: string } {
  // starttime is field 22 of proc(5).
  const started = procStatFields(pid)?.[19];
  return started ? { started } : {};
}
