import { startBenchRunner } from "./run-cpu.ts";
import { startModelProcess, perCall } from "./lib.ts";
const model = await startModelProcess();
const runner = await startBenchRunner(model.url, { NODE_OPTIONS: process.env.PROF ? "--cpu-prof --cpu-prof-dir=/tmp/prof/out --cpu-prof-interval=100" : undefined });
const n = Number(process.env.N ?? 300);
const r = await perCall([runner.pid], runner.oneRun, n, 20);
console.log(`runner CPU per run ${r.cpuMs.toFixed(2)} ms, wall ${r.wallMs.toFixed(2)} ms`);
await runner.stop(); model.stop();
await new Promise((r) => setTimeout(r, 1500));
