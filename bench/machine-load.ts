// How fast the machine ran while the benchmarks did: a fixed piece of work, timed now and then in
// CPU time of the thread that does it. On a shared virtual machine the same work takes more CPU
// time when the host is crowded (its cores, caches and memory shared with other guests), while the
// guest's steal counter can stay at zero; the benchmark's own processes sharing the caches add to
// it too. CPU time, unlike the wall clock, leaves out the time this thread waited for a CPU behind
// them. Printed with the figures, so that a run on a slow moment of the host can be told from a
// change that made things slower.
import { percentile } from "./lib.ts";

const EVERY_MS = 2_000;
const ITERATIONS = 2_000_000;

function work(): number {
  let x = 0;
  for (let i = 0; i < ITERATIONS; i++) x = (x + i * 31) % 1_000_003;
  return x;
}

/** CPU ms the work takes once on this thread. */
function timeWork(): number {
  const before = process.threadCpuUsage();
  work();
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Starts timing the work every EVERY_MS; the function returned stops and says, in words, how long
 * it took (fastest, median, slowest). */
export function watchMachineSpeed(): () => string {
  timeWork(); // compiled and optimised before the first sample counts
  const samples = [timeWork()];
  const timer = setInterval(() => samples.push(timeWork()), EVERY_MS).unref();
  return () => {
    clearInterval(timer);
    const sorted = samples.toSorted((a, b) => a - b);
    const [fastest, slowest] = [sorted[0], sorted.at(-1)!];
    return `the machine's speed: the same piece of work took ${fastest.toFixed(1)}–${slowest.toFixed(1)} ms of CPU (median ${percentile(sorted, 50).toFixed(1)}, ${sorted.length} times over the run): at its slowest the machine ran ${(slowest / fastest).toFixed(1)}× slower than at its fastest`;
  };
}
