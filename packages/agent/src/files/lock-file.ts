// Lock files over a file that several programs of one user change at once (the MCP sign-in file,
// a conversation `harness run` keeps). A lock rather than merging what each program read: a merge
// still leaves the moment between a program's read and its rename, in which another's write is
// lost (a refresh token good once, written back stale, then gets the next refresh refused).
//
// A lock is a file made only if absent (O_EXCL) holding its holder's host, pid and a token of its
// own. One whose holder has ended (a process of this host that is gone) or that is older than the
// caller's `staleMs` is taken over: renamed aside, then made again. One that cannot be read (another
// user's, or not a file) is judged by its age alone; one that cannot be removed once stale (another
// user's in a folder that keeps it, a directory) fails the wait at once, as no wait would end it.
// Two programs taking over the same dead lock at once could both think they hold it; the one that
// finds it moved another's lock (not the dead one it judged) puts it back and waits.
import { randomBytes } from "node:crypto";
import { closeSync, linkSync, lstatSync, openSync, readFileSync, renameSync, rmSync, type Stats, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pidAlive } from "../process/pid-alive.ts";

export type LockTimes = {
  /** How long a lock may be held before another program takes it over. */
  staleMs: number;
  /** How long to wait for it before giving up with an Error naming the lock file. */
  waitMs: number;
};

const POLL_MS = 10;
const nap = new Int32Array(new SharedArrayBuffer(4));

/** Runs `work` holding the lock `path`; waits for it by sleeping the thread, so only for locks
 * held a few milliseconds (a read and a write of the sign-in file). */
export function withLockSync<T>(path: string, times: LockTimes, work: () => T): T {
  const deadline = Date.now() + times.waitMs;
  let token = tryLock(path, times.staleMs);
  while (token === undefined) {
    if (Date.now() > deadline) throw heldTooLong(path);
    Atomics.wait(nap, 0, 0, POLL_MS);
    token = tryLock(path, times.staleMs);
  }
  try {
    return work();
  } finally {
    unlock(path, token);
  }
}

/** Runs `work` holding the lock `path`, waiting for it without blocking the thread. */
export async function withLock<T>(path: string, times: LockTimes, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + times.waitMs;
  let token = tryLock(path, times.staleMs);
  while (token === undefined) {
    if (Date.now() > deadline) throw heldTooLong(path);
    await sleep(POLL_MS);
    token = tryLock(path, times.staleMs);
  }
  try {
    return await work();
  } finally {
    unlock(path, token);
  }
}

/** Takes the lock: its token, or undefined while another program holds it. */
function tryLock(path: string, staleMs: number): string | undefined {
  const token = `${hostname()} ${process.pid} ${randomBytes(8).toString("hex")}`;
  try {
    const fd = openSync(path, "wx", 0o600);
    try {
      writeSync(fd, token);
    } catch (error) {
      // A lock made but not written (a full disk) would name no holder and be waited for until
      // stale: it is this program's, so it goes.
      closeSync(fd);
      rmSync(path, { force: true });
      throw error;
    }
    closeSync(fd);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new Error(`cannot make the lock file ${path}: ${whyNot(path, error)}`);
  }
  // The holder is read before the age: a lock made in between is judged by its own.
  const held = readHolder(path);
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch {
    return undefined; // released meanwhile
  }
  const stale = staleness(stats, held, staleMs);
  if (stale === undefined) return undefined;
  if (stats.isDirectory()) throw cannotRemove(path, stale, "it is a directory, not a lock file");
  takeOver(path, held, stale);
  return undefined;
}

/** Why the lock is stale: its holder has ended, or else it has not changed for `staleMs`; undefined
 * while it is not. The age of a lock whose holder cannot be read is all there is to judge it by
 * (stat needs no read permission). */
function staleness(stats: Stats, holder: string | undefined, staleMs: number): string | undefined {
  const [host, pid] = holder?.split(" ") ?? [];
  const id = Number(pid);
  // A pid that is not one (a lock file written by something else) counts as a holder that ended.
  if (holder !== undefined && host === hostname() && !(Number.isInteger(id) && id > 0 && pidAlive(id))) return "the program that made it has ended";
  const age = Date.now() - stats.mtimeMs;
  return age > staleMs ? `unchanged for ${Math.round(age / 1000)} s, longer than a harness program holds one` : undefined;
}

/** Removes the dead lock `holder` held (undefined: one that could not be read); the caller then
 * tries again. */
function takeOver(path: string, holder: string | undefined, stale: string): void {
  const aside = `${path}.${randomBytes(6).toString("hex")}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return; // another program took it over first
    throw cannotRemove(path, stale, code === "EACCES" || code === "EPERM" ? "permission denied" : (error as Error).message);
  }
  if (readHolder(aside) !== holder) {
    // A lock made since it was judged dead: its holder's, given back.
    try {
      linkSync(aside, path);
    } catch {
      // A third program holds the lock by now; the one moved aside is released by its holder's
      // unlock finding someone else's token, so at worst two hold it, as without a lock.
    }
  }
  rmSync(aside, { force: true });
}

/** Releases the lock, unless it was taken over meanwhile (then it is the new holder's). */
function unlock(path: string, token: string): void {
  if (readHolder(path) === token) rmSync(path, { force: true });
}

/** The holder written in the lock file; undefined when there is none to read: the file is gone,
 * cannot be read, or is not a regular file (a FIFO would hold the read until someone wrote to it). */
function readHolder(path: string): string | undefined {
  try {
    return lstatSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** Why the lock file could not be made, said with what to do where there is something to do. */
function whyNot(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const folder = dirname(path);
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
    const reason = code === "EROFS" ? "a read-only file system" : "permission denied";
    return `the folder ${folder} is not writable (${reason}): make it writable for this user, as the file the lock guards is written there too`;
  }
  if (code === "ENOENT") return `the folder ${folder} does not exist`;
  return (error as Error).message;
}

/** A stale lock that no wait would end. */
function cannotRemove(path: string, stale: string, why: string): Error {
  const remove = why === "permission denied" ? "remove it, as its owner or with sudo," : "remove it";
  return new Error(`the lock file ${path} is stale (${stale}) but cannot be removed: ${why}; ${remove} if no harness program is running`);
}

function heldTooLong(path: string): Error {
  return new Error(`${path} is held by another harness program and was not released in time; remove it if no harness program is running`);
}
