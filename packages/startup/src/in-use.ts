// Which builds of a startup bundle live processes were started from. A process loads its build's
// chunks as it first uses what they hold, so a server that has run for days still needs its build:
// each start records its build as `<builds>/in-use/<build>.<pid>`, holding the process's start time
// where /proc tells it (a later process with the same pid is not the one that wrote it), and
// removes the record as it exits. One killed leaves its record, which the next build's cleanup
// removes. Records live beside the builds, not in them, so that writing one leaves a build's age
// (its directory's mtime) as it was.
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { pidAlive, procStatFields } from "@harness/agent/pid-alive";

/** The last line of a bundle that build.ts wrote: the import of its build's entry chunk. */
const BUILD_IMPORT = /^\nimport "\.\/([^/"]+)\/([0-9a-f]{16})\/(main\.m?js)";\n$/;
const TAIL_BYTES = 512;
const RECORD = /^([0-9a-f]{16})\.(\d+)$/;
/** The directory of the records among a bundle's builds (not a build itself). */
export const IN_USE = "in-use";

export type Use = { url: string; release(): void };

/** What a start from `bundle` imports: the entry chunk of the build the bundle names, recorded as in
 * use by this process until it exits, or the bundle itself when it names no build. Never throws
 * over a record that cannot be written (a read-only node_modules): the build is then only not
 * kept past its age. */
export function useBuild(bundle: string): Use {
  const named = namedBuild(bundle);
  if (!named) return { url: pathToFileURL(bundle).href, release() {} };
  const builds = join(dirname(bundle), named.builds);
  const url = pathToFileURL(join(builds, named.id, named.entry)).href;
  const record = join(builds, IN_USE, `${named.id}.${process.pid}`);
  if (!write(record, startTime(process.pid) ?? "")) return { url, release() {} };
  const release = () => rmSync(record, { force: true });
  process.once("exit", release);
  return {
    url,
    release() {
      process.off("exit", release);
      release();
    },
  };
}

/** The build `bundle` imports, from its last line; only that is read (the first, its list of
 * files, runs to tens of kilobytes). */
function namedBuild(bundle: string): { builds: string; id: string; entry: string } | undefined {
  let tail: string;
  try {
    const fd = openSync(bundle, "r");
    try {
      const buffer = Buffer.allocUnsafe(TAIL_BYTES);
      const at = Math.max(0, fstatSync(fd).size - TAIL_BYTES);
      tail = buffer.toString("utf8", 0, readSync(fd, buffer, 0, TAIL_BYTES, at));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const named = BUILD_IMPORT.exec(tail.slice(tail.lastIndexOf("\n", tail.length - 2)));
  return named ? { builds: named[1], id: named[2], entry: named[3] } : undefined;
}

function write(record: string, text: string): boolean {
  try {
    writeFileSync(record, text);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
  }
  try {
    mkdirSync(dirname(record), { recursive: true });
    writeFileSync(record, text);
    return true;
  } catch {
    return false;
  }
}

/** When process `pid` started, in clock ticks since boot (field 22 of proc(5)); undefined where
 * /proc cannot tell. */
function startTime(pid: number): string | undefined {
  return procStatFields(pid)?.[19] || undefined;
}

/** The builds in `builds` that a live process was started from. Records of processes that have
 * ended are removed. */
export function buildsInUse(builds: string): Set<string> {
  const dir = join(builds, IN_USE);
  const used = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return used;
  }
  for (const name of names) {
    const record = RECORD.exec(name);
    if (record && lives(Number(record[2]), join(dir, name))) used.add(record[1]);
    else rmSync(join(dir, name), { recursive: true, force: true });
  }
  return used;
}

/** Whether process `pid` still runs and is the one that wrote `record`. */
function lives(pid: number, record: string): boolean {
  if (!pidAlive(pid)) return false;
  let written: string;
  try {
    written = readFileSync(record, "utf8").trim();
  } catch {
    return false;
  }
  const now = startTime(pid);
  return written === "" || now === undefined || written === now;
}
