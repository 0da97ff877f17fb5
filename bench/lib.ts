// Shared pieces of the benchmarks: clocks, statistics, a lean WebSocket client that only counts
// timestamped text, and process memory readings.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readdir, readFile } from "node:fs/promises";
import WebSocket from "ws";

/** Milliseconds on a clock shared by everything in this process (the fake model servers' request
 * times use it too). */
export const now = () => performance.timeOrigin + performance.now();
/** Milliseconds on the machine's monotonic clock: the same in every process, so a stamp written in
 * the fake model's process can be compared with the moment another process receives it. */
export const machineNow = () => Number(process.hrtime.bigint()) / 1e6;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes the startup bundles of the `harness` command and the runner now if they are stale
 * (packages/startup), so that every process a benchmark starts loads the same code rather than the
 * first few loading the sources while the bundles are written. */
export function ensureStartupBundle(): void {
  const builder = fileURLToPath(new URL("../packages/startup/src/build-main.ts", import.meta.url));
  const built = spawnSync(process.execPath, [builder, "--wait"], { stdio: "inherit" });
  if (built.status !== 0) console.log("(a startup bundle could not be written: the processes without one load their sources)");
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
export const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

/** A text chunk that carries the moment it was produced: the receiver subtracts it from its clock. */
export const stamp = (t = machineNow()) => `⟦${t.toFixed(3)}⟧`;
const STAMP = /⟦(\d+\.\d+)⟧/g;

export function rssKiB(pid: number): number {
  return vmRssKiB(readFileSync(`/proc/${pid}/status`, "utf8"));
}

/** VmRSS of a /proc/<pid>/status text, in KiB (NaN when it has none). */
function vmRssKiB(status: string): number {
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

/** The fields of /proc/<pid>/stat after the command name (field 4, the parent, is [1]). */
async function statFields(pid: number | string): Promise<string[]> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Every process's parent, read from /proc. */
export async function processParents(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), Number((await statFields(entry))[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  return parents;
}

/** CPU time (user and system, all threads) `pids` have used so far, in ms; a process that has ended
 * counts nothing. Linux counts it in ticks of 10 ms (CLK_TCK 100). */
export async function cpuMs(pids: Iterable<number>): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = await statFields(pid);
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone.
    }
  }
  return ticks * 10;
}

/** The processes whose parent is `pid`. */
async function childrenOf(pid: number): Promise<number[]> {
  return [...(await processParents())].filter(([, parent]) => parent === pid).map(([child]) => child);
}

/** `pid` and its children. */
export async function withChildren(pid: number): Promise<number[]> {
  return [pid, ...(await childrenOf(pid))];
}

/** CPU of `pids` (ms, all threads) and wall time (ms) per call of `once`, over `runs` calls made
 * one after the other, after `warmUp` calls that are not counted. */
export async function perCall(pids: number[], once: () => Promise<void>, runs: number, warmUp = 0): Promise<{ cpuMs: number; wallMs: number }> {
  for (let i = 0; i < warmUp; i++) await once();
  const before = await cpuMs(pids);
  const started = performance.now();
  for (let i = 0; i < runs; i++) await once();
  return { cpuMs: ((await cpuMs(pids)) - before) / runs, wallMs: (performance.now() - started) / runs };
}

/** Resident memory of `pids` in all, in KiB (a process that has ended counts nothing). */
export async function totalRssKiB(pids: Iterable<number>): Promise<number> {
  let total = 0;
  for (const pid of pids) {
    try {
      // A zombie has no VmRSS: it holds no memory.
      const kib = vmRssKiB(await readFile(`/proc/${pid}/status`, "utf8"));
      if (Number.isFinite(kib)) total += kib;
    } catch {
      // Gone.
    }
  }
  return total;
}

/** The processes whose parent is `pid`, and their resident memory in all. */
export async function childrenRss(pid: number): Promise<{ count: number; kib: number }> {
  const children = await childrenOf(pid);
  return { count: children.length, kib: await totalRssKiB(children) };
}

/** Connects to a session and records, for every stamped chunk received, its latency. */
export class StampCounter {
  readonly latencies: number[] = [];
  /** When each delta of `latencies` was written, on the machine's monotonic clock (ms). */
  readonly stamps: number[] = [];
  received = 0;
  lastAt = 0;
  /** Milliseconds from the last submit to the first timed delta of its run (NaN before one comes). */
  firstDeltaMs = Number.NaN;
  #submittedAt = 0;
  status = "";
  readonly socket: WebSocket;
  #idleWaiters: (() => void)[] = [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on("message", (data) => {
      const at = machineNow();
      const frame = JSON.parse(String(data));
      if (frame.type === "state") this.status = frame.state.status;
      if (frame.type !== "delta") return;
      for (const op of frame.operations) {
        if (op.type === "append-text") {
          for (const m of (op.value as string).matchAll(STAMP)) {
            if (this.received === 0) this.firstDeltaMs = at - this.#submittedAt;
            this.latencies.push(at - Number(m[1]));
            this.stamps.push(Number(m[1]));
            this.received++;
            this.lastAt = at;
          }
        } else if (op.path.length === 1 && op.path[0] === "status") {
          this.status = op.value;
          if (op.value !== "running") for (const w of this.#idleWaiters.splice(0)) w();
        }
      }
    });
  }

  static open(url: string, userId: string, sessionId: string): Promise<StampCounter> {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws?userId=${userId}&sessionId=${sessionId}`, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new StampCounter(ws)));
      ws.once("error", reject);
    });
  }

  /** Submits and resolves when the session is no longer running. */
  run(prompt: string): Promise<void> {
    const done = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.#submittedAt = machineNow();
    this.socket.send(JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt }] }));
    return done;
  }

  reset(): void {
    this.latencies.length = 0;
    this.stamps.length = 0;
    this.received = 0;
    this.firstDeltaMs = Number.NaN;
  }

  close(): void {
    this.socket.close();
  }
}

export function fmt(n: number, digits = 2): string {
  if (!Number.isFinite(n)) return "n/a";
  return n >= 1000 ? Math.round(n).toLocaleString("en-US") : n.toFixed(digits);
}

export type Listening = { url: string; pid: number; stop(): void };

/** Starts a script (its path relative to bench/) that prints a JSON line with its `url` once
 * listening and exits when its stdin closes, which `stop` does. */
export async function startListening(script: string, args: string[] = [], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Listening> {
  const child = spawn(process.execPath, [new URL(script, import.meta.url).pathname, ...args], { stdio: ["pipe", "pipe", "inherit"], ...options });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      out += s;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before listening`)));
  });
  return { url, pid: child.pid!, stop: () => child.stdin!.end() };
}

/** Starts bench/model-process.ts; resolves with its URL and a way to stop it. */
export function startModelProcess(): Promise<Listening> {
  return startListening("./model-process.ts");
}

/** Starts the bare relays of relay-hops.ts in front of the model: `runners` runner hops (sessions
 * take them in turn, as the server's runner processes are shared) and a server hop. */
export async function startRelay(modelUrl: string, runners: number): Promise<{ url: string; pids: number[]; hops: Listening[]; stop(): void }> {
  const hops = await Promise.all(Array.from({ length: runners }, () => startListening("./relay-hops.ts", ["runner", modelUrl])));
  const server = await startListening("./relay-hops.ts", ["server", hops.map((h) => h.url).join(",")]);
  return {
    url: server.url,
    pids: [server.pid, ...hops.map((h) => h.pid)],
    hops,
    stop() {
      server.stop();
      for (const hop of hops) hop.stop();
    },
  };
}
