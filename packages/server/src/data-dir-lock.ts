// One server per data directory. Two servers on one directory would each keep their own copy of a
// session and overwrite the other's writes, adopt and stop each other's runners. The lock is a
// file naming the holder's pid (and, on Linux, when that process started, so that a pid the
// system gave to another process since does not count); a holder that is gone leaves a stale lock,
// which the next server takes over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pidAlive } from "./pid-alive.ts";

export const LOCK_FILE = "server.lock";

type Holder = { pid: number; started?: string };

export type DataDirLock = { release(): void };

/** Takes the data directory `dir`, or throws an error naming the server that holds it. */
export function lockDataDir(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE);
  const own: Holder = { pid: process.pid, ...withStart(process.pid) };
  const text = `${JSON.stringify(own)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
    }
    const holder = readHolder(path);
    if (holder && holdsIt(holder)) {
      throw new Error(
        `another Harness server (pid ${holder.pid}) is using the data directory ${dir}: stop it, or give this one another HARNESS_DATA_DIR`,
      );
    }
    // Stale: its server is gone (or unreadable, as a crash while writing it leaves it).
    unlinkSync(path);
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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may hold spaces and parentheses: starttime is the 22nd.
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return started ? { started } : {};
  } catch {
    return {};
  }
}
