// Latency and throughput of text deltas: fake model → runner → session → WebSocket client. The
// clients that time them run in a process of their own (client-process.ts).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { ClientAnswer, ClientCommand } from "./client-process.ts";
import { childrenRss, cpuMs, percentile } from "./lib.ts";

export type Percentiles = { p50: number; p99: number; samples: number };
/** All the deltas of a pass, and `steady`: those written while every run of the pass streams, that
 * is, without each stream's first and last EDGE_DELTAS (the time in which all the runs start, or all
 * end, together). */
export type LatencyFigures = Percentiles & { steady: Percentiles };

/** At a delta every 50 ms, half a second: the 100 runs of a pass take 200–400 ms to start. */
export const EDGE_DELTAS = 10;

function percentiles(latencies: number[]): Percentiles {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), samples: sorted.length };
}

/** A stream's latencies in three parts that do not overlap: its first EDGE_DELTAS (the runs
 * starting), its middle (every run streaming) and its last EDGE_DELTAS (the runs ending). */
export function streamParts(stream: number[]): { start: number[]; middle: number[]; end: number[] } {
  const middleEnd = Math.max(EDGE_DELTAS, stream.length - EDGE_DELTAS);
  return { start: stream.slice(0, EDGE_DELTAS), middle: stream.slice(EDGE_DELTAS, middleEnd), end: stream.slice(middleEnd) };
}

function summarize(streams: number[][]): LatencyFigures {
  return { ...percentiles(streams.flat()), steady: percentiles(streams.flatMap((s) => streamParts(s).middle)) };
}

export type Clients = { call(command: ClientCommand): Promise<ClientAnswer>; stop(): void };

/** Starts client-process.ts; its answers come back in the order the commands went. */
export async function startClients(): Promise<Clients> {
  const child = spawn(process.execPath, [new URL("./client-process.ts", import.meta.url).pathname], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting: { resolve(a: ClientAnswer): void; reject(e: Error): void }[] = [];
  let ready: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const answer = JSON.parse(line) as ClientAnswer & { ready?: boolean };
    if (answer.ready) return ready();
    const next = waiting.shift();
    if (answer.error !== undefined) next?.reject(new Error(`bench clients: ${answer.error}`));
    else next?.resolve(answer);
  });
  child.once("exit", (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`bench clients exited (${code})`));
  });
  await started;
  return {
    call(command) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin!.write(`${JSON.stringify(command)}\n`);
      });
    },
    stop: () => child.stdin!.end(),
  };
}

/** The prompt of a paced stream: `count` deltas, one every `intervalMs`, the first after a random
 * offset within the interval, or none when `inStep` (every stream ticks in the same millisecond). */
export const paced = (count: number, intervalMs: number, inStep: boolean) => `paced ${count} ${intervalMs} ${inStep ? 0 : (Math.random() * intervalMs).toFixed(1)}`;

/** `sessions` sessions stream `count` stamped deltas each, one every `intervalMs`, at the same time,
 * twice: the first streaming run of each session meets runner processes whose code is not yet
 * optimised ("first"); the second shows them warm ("warm"). All runs are submitted at once. With
 * `inStep`, every stream ticks in the same millisecond (a burst of one delta per session every
 * interval: the worst case); otherwise each starts at its own offset within the first interval,
 * as independent model streams would. */
export async function measureLatency(
  clients: Clients,
  url: string,
  sessions: number,
  count: number,
  intervalMs: number,
  options: {
    inStep?: boolean;
    /** Whose runner processes to count (its children). */
    serverPid?: number;
    /** The processes whose CPU the warm pass is charged with (`warmCpuUsPerDelta`). */
    processes?: () => Promise<number[]>;
  } = {},
): Promise<{ first: LatencyFigures; warm: LatencyFigures; runners: { count: number; kib: number }; warmCpuUsPerDelta?: number }> {
  const { inStep = false, serverPid, processes } = options;
  await clients.call({ op: "open", url, sessions, prefix: `lat${sessions}-${Date.now()}` });
  // Every session starts its runner and completes one short run before anything is measured.
  await clients.call({ op: "pass", prompts: Array(sessions).fill("hello") });
  const pass = async () => {
    const prompts = Array.from({ length: sessions }, () => paced(count, intervalMs, inStep));
    return summarize((await clients.call({ op: "pass", prompts })).streams!);
  };
  const first = await pass();
  const pids = processes ? await processes() : [];
  const cpuBefore = await cpuMs(pids);
  const warm = await pass();
  const cpuUsed = (await cpuMs(pids)) - cpuBefore;
  // The runner processes are still up (they outlive a run): count them and their memory.
  const runners = serverPid === undefined ? { count: 0, kib: 0 } : await childrenRss(serverPid);
  await clients.call({ op: "close" });
  return { first, warm, runners, ...(processes && { warmCpuUsPerDelta: (cpuUsed * 1000) / warm.samples }) };
}

/** One session receives `count` deltas that the fake model writes as fast as it can. */
export async function measureThroughput(clients: Clients, url: string, count: number): Promise<{ perSecond: number; count: number }> {
  const { perSecond, received } = await clients.call({ op: "throughput", url, count });
  if (received !== count) throw new Error(`throughput run received ${received} of ${count} deltas`);
  return { perSecond: perSecond!, count };
}

/** The same fake model read directly with the Anthropic SDK, by `streams` readers at once at the
 * same pace as the sessions: the floor any client pays, timing included. */
export async function sdkBaseline(clients: Clients, baseURL: string, streams: number, count: number, intervalMs: number, inStep = false): Promise<LatencyFigures> {
  const prompts = Array.from({ length: streams }, () => paced(count, intervalMs, inStep));
  return summarize((await clients.call({ op: "sdk", baseURL, prompts })).streams!);
}

/** One reader of `burst` deltas written as fast as the fake model can: deltas per second. */
export async function sdkThroughput(clients: Clients, baseURL: string, burst: number): Promise<number> {
  return (await clients.call({ op: "sdkThroughput", baseURL, burst })).perSecond!;
}
