// Where the slow deltas of 100 streaming sessions fall: `node bench/tail.ts [rounds]` (under Node 24:
// `bash scripts/node.sh bench/tail.ts`). Each round opens 100 sessions on a fresh server, submits
// them all at once twice (a first and a warm pass, as `npm run bench` does) and prints, per pass,
// the p99 and how many deltas took over 5 ms: in each stream's first 10 deltas (the half second in
// which all the runs start), in its middle, and in its last 10 (all the runs end); how many of the
// late ones fell in stalls that held five streams or more at once; how long the sessions waited
// from submit to their first delta; how many streams' 1st, 2nd … 5th delta came late; and the CPU
// each process spent in the pass's first 400 ms. Not part of `npm run bench`: it explains a figure
// of it rather than adding one.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarnessServer } from "@harness/test-utils";
import { paced, startClients, streamParts } from "./streaming.ts";
import { cpuMs, ensureStartupBundle, percentile, sleep, startModelProcess, withChildren } from "./lib.ts";

const LATE_MS = 5;
/** The first deltas of each stream whose lateness is counted one by one. */
const POSITIONS = 5;
const rounds = Number(process.argv[2] ?? 3);
ensureStartupBundle();
const model = await startModelProcess();
const clients = await startClients();
const env = { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: model.url, HARNESS_RUNNER_IDLE_MS: "600000" };

/** A stall is shared when deltas of this many streams, written within the same STALL_WINDOW_MS,
 * all came late: something every stream goes through (the server, a runner, the machine) held them,
 * rather than one stream's own work. */
const SHARED_BY = 5;
const STALL_WINDOW_MS = 10;

/** How many late deltas fall in shared stalls. */
function sharedStalls(streams: number[][], stamps: number[][]): number {
  const windows = new Map<number, Set<number>>();
  const late: number[] = [];
  streams.forEach((latencies, stream) =>
    latencies.forEach((ms, i) => {
      if (ms <= LATE_MS) return;
      const window = Math.floor(stamps[stream][i] / STALL_WINDOW_MS);
      late.push(window);
      windows.set(window, (windows.get(window) ?? new Set()).add(stream));
    }),
  );
  return late.filter((window) => windows.get(window)!.size >= SHARED_BY).length;
}

/** CPU (ms, all threads) each of `pids` uses in the next `ms` milliseconds. */
async function cpuOver(pids: number[], ms: number): Promise<number[]> {
  const before = await Promise.all(pids.map((pid) => cpuMs([pid])));
  await sleep(ms);
  const after = await Promise.all(pids.map((pid) => cpuMs([pid])));
  return after.map((t, i) => t - before[i]);
}

for (let round = 1; round <= rounds; round++) {
  const server = await startHarnessServer({ dataDir: await mkdtemp(join(tmpdir(), "harness-tail-")), env });
  try {
    await clients.call({ op: "open", url: server.url, sessions: 100, prefix: `tail${round}-${Date.now()}` });
    await clients.call({ op: "pass", prompts: Array(100).fill("hello") });
    const runners = (await withChildren(server.child.pid!)).filter((pid) => pid !== server.child.pid);
    const pids = [server.child.pid!, ...runners, model.pid];
    for (const label of ["first", "warm"]) {
      const prompts = Array.from({ length: 100 }, () => paced(100, 50, false));
      const [answer, cpu] = await Promise.all([clients.call({ op: "pass", prompts }), cpuOver(pids, 400)]);
      const streams = answer.streams!;
      const parts = streams.map(streamParts);
      const late = (part: "start" | "middle" | "end") => parts.flatMap((p) => p[part]).filter((ms) => ms > LATE_MS).length;
      const all = streams.flat().sort((a, b) => a - b);
      const names = ["server", ...runners.map(() => "runner"), "model"];
      const firsts = answer.firstDeltas!.toSorted((a, b) => a - b);
      // A stream's first deltas fall in the start by construction; how many of each position came
      // late shows whether the start costs a stream's first delta more than the ones after it.
      const byPosition = Array.from({ length: POSITIONS }, (_, i) => streams.filter((s) => s[i] > LATE_MS).length);
      console.log(
        `round ${round} ${label}: p99 ${percentile(all, 99).toFixed(2)} ms; over ${LATE_MS} ms: ` +
          `${late("start")} while starting, ${late("middle")} in the middle, ${late("end")} while ending (of ${all.length}); ` +
          `${sharedStalls(streams, answer.stamps!)} of them in stalls shared by ${SHARED_BY} streams or more; ` +
          `late by position in the stream (1st..${POSITIONS}th): ${byPosition.join(" ")}; ` +
          `submit to first delta: median ${percentile(firsts, 50).toFixed(0)}, slowest ${firsts.at(-1)!.toFixed(0)} ms; ` +
          `CPU in the first 400 ms: ${cpu.map((ms, i) => `${names[i]} ${ms.toFixed(0)}`).join(", ")} ms`,
      );
    }
    await clients.call({ op: "close" });
  } finally {
    await server.stop();
  }
}
clients.stop();
model.stop();
