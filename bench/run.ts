// `npm run bench`: end-to-end figures for the running system, each beside a baseline measured in
// the same run on the same machine. Everything talks over loopback to real processes.
//   BENCH_QUICK=1 runs smaller counts (for a smoke check).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, startHarnessServer } from "@harness/test-utils";
import { benchReply } from "./scenarios.ts";
import { EDGE_DELTAS, measureLatency, measureThroughput, sdkBaseline, sdkThroughput, startClients } from "./streaming.ts";
import { measureIdleMemory } from "./memory.ts";
import { measureRunStart } from "./run-start.ts";
import { measureRunnerStart } from "./runner-start.ts";
import { measureRunCpu } from "./run-cpu.ts";
import { measureTelemetryCpu, telemetryCpuRow } from "./telemetry-cpu.ts";
import { measureToolRoundTrip } from "./agent.ts";
import { measureGrep } from "./grep.ts";
import { measureSandbox } from "./sandbox.ts";
import { measureBackend } from "./backends.ts";
import { measureLongSession } from "./long-session.ts";
import { findClaudeCodeExecutable } from "@harness/runner";
import { ensureStartupBundle, fmt, startModelProcess, startRelay, withChildren } from "./lib.ts";
import { watchMachineSpeed } from "./machine-load.ts";
import { DEFAULT_SESSIONS_PER_RUNNER } from "@harness/server";

const quick = process.env.BENCH_QUICK === "1";
const machineSpeed = watchMachineSpeed();
ensureStartupBundle();
const dataDir = await mkdtemp(join(tmpdir(), "harness-bench-"));
// The model the sessions stream from runs in a process of its own (see model-process.ts); the
// in-process one serves the start-up measurement, which reads its request log.
const fake = await startFakeAnthropic({ respond: (req) => benchReply(req) });
const model = await startModelProcess();
// The clients that time the deltas: a process of their own (client-process.ts).
const clients = await startClients();
const env = { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: model.url, HARNESS_RUNNER_IDLE_MS: "600000" };
const server = await startHarnessServer({ dataDir, env });
const rows: string[][] = [];
const row = (...cells: string[]) => {
  rows.push(cells);
  console.log(cells.join("  |  "));
};

try {
  console.log(`# Harness benchmarks — node ${process.version}, ${new Date().toISOString()}${quick ? " (quick)" : ""}\n`);
  // Headline: the same 10-turn Bash scenario through our loop and through Claude Code. One run is
  // thrown away first: the first load after an install writes the model SDKs' bundle cache
  // (node_modules/.cache/harness/bundles), a one-time cost that would stand in for every start.
  await measureBackend("builtin");
  const builtin = await measureBackend("builtin");
  if (findClaudeCodeExecutable()) {
    const cc = await measureBackend("claude-code");
    const pair = (label: string, a: number, b: number, unit: string, digits = 1) =>
      row(`builtin vs claude-code: ${label}`, `builtin ${fmt(a, digits)} ${unit}`, `claude-code ${fmt(b, digits)} ${unit}`, `ratio ${fmt(a / b)}×`);
    pair("query → first model request", builtin.firstRequestMs, cc.firstRequestMs, "ms", 0);
    pair("per-turn overhead (reply → next request, Bash echo in between), median", builtin.perTurnMs, cc.perTurnMs, "ms");
    pair("peak memory of the runner's process tree", builtin.peakMemoryMiB, cc.peakMemoryMiB, "MiB", 0);
    pair("first request size", builtin.firstRequestBytes, cc.firstRequestBytes, "bytes", 0);
    pair("first request tokens (chars/4)", builtin.firstRequestTokens, cc.firstRequestTokens, "tokens", 0);
  } else {
    console.log("(Claude Code binary not installed: the backend comparison is skipped)");
  }
  // A model streams a few dozen text deltas a second; every session streams at that pace at once.
  const interval = Number(process.env.BENCH_DELTA_INTERVAL_MS ?? 50);
  const count = quick ? 40 : 100;
  let pooled: Awaited<ReturnType<typeof measureLatency>> | undefined;
  for (const [sessions, inStep] of [[1, false], [100, false], [100, true]] as const) {
    const baseline = await sdkBaseline(clients, model.url, sessions, count, interval, inStep);
    const lat = await measureLatency(clients, server.url, sessions, count, interval, {
      inStep,
      serverPid: server.child.pid,
      processes: () => withChildren(server.child.pid!),
    });
    if (sessions === 100 && !inStep) pooled = lat;
    const how = inStep ? ", all ticking in the same millisecond" : "";
    for (const [label, f] of [["first run", lat.first], ["warm", lat.warm]] as const) {
      row(
        `added latency, ${sessions} session(s), a delta every ${interval} ms each${how}, ${label}`,
        `p50 ${fmt(f.p50)} ms, p99 ${fmt(f.p99)} ms (${f.samples} deltas)`,
        `baseline SDK direct, ${sessions} stream(s): p50 ${fmt(baseline.p50)} ms, p99 ${fmt(baseline.p99)} ms`,
        `p99 ratio ${fmt(f.p99 / baseline.p99)}×`,
      );
    }
    // The same passes without the time in which all their runs start and end together.
    if (sessions > 1 && !inStep) {
      for (const [label, f] of [["first run", lat.first.steady], ["warm", lat.warm.steady]] as const) {
        row(
          `added latency, ${sessions} sessions, ${label}, while all ${sessions} runs stream (each stream's first and last ${EDGE_DELTAS} deltas left out)`,
          `p50 ${fmt(f.p50)} ms, p99 ${fmt(f.p99)} ms (${f.samples} deltas)`,
          `baseline SDK direct, the same deltas: p50 ${fmt(baseline.steady.p50)} ms, p99 ${fmt(baseline.steady.p99)} ms`,
          `p99 ratio ${fmt(f.p99 / baseline.steady.p99)}×`,
        );
      }
    }
  }
  // The floor the architecture sets: the same processes and hops, with bare relays in them.
  if (pooled) {
    const relay = await startRelay(model.url, Math.ceil(100 / DEFAULT_SESSIONS_PER_RUNNER));
    try {
      const bare = await measureLatency(clients, relay.url, 100, count, interval, { processes: async () => relay.pids });
      const passes = [
        ["first run", pooled.first, bare.first],
        ["warm", pooled.warm, bare.warm],
        ["first run, while all 100 runs stream", pooled.first.steady, bare.first.steady],
        ["warm, while all 100 runs stream", pooled.warm.steady, bare.warm.steady],
      ] as const;
      for (const [label, ours, floor] of passes) {
        row(
          `100 sessions streaming, ${label}: against the same three hops with nothing in them (model → relay process → relay process → WebSocket)`,
          `p50 ${fmt(ours.p50)} ms, p99 ${fmt(ours.p99)} ms`,
          `bare relays: p50 ${fmt(floor.p50)} ms, p99 ${fmt(floor.p99)} ms`,
          `p99 ratio ${fmt(ours.p99 / floor.p99)}×`,
        );
      }
      if (pooled.warmCpuUsPerDelta !== undefined && bare.warmCpuUsPerDelta !== undefined) {
        row(
          "100 sessions streaming, warm: CPU per delta of the server and runner processes (all threads), against the relay processes",
          `${fmt(pooled.warmCpuUsPerDelta, 0)} µs`,
          `bare relays ${fmt(bare.warmCpuUsPerDelta, 0)} µs`,
          `ratio ${fmt(pooled.warmCpuUsPerDelta / bare.warmCpuUsPerDelta)}×`,
        );
      }
    } finally {
      relay.stop();
    }
  }
  // The same 100 sessions with a runner process each (the layout without sharing), in a second server.
  if (!quick && pooled) {
    const soloDir = await mkdtemp(join(tmpdir(), "harness-bench-solo-"));
    const solo = await startHarnessServer({ dataDir: soloDir, env: { ...env, HARNESS_RUNNER_SESSIONS_PER_PROCESS: "1" } });
    try {
      const lat = await measureLatency(clients, solo.url, 100, count, interval, { serverPid: solo.child.pid });
      const mib = (kib: number) => fmt(kib / 1024, 0);
      row(
        "100 sessions streaming: runner processes, their memory, warm p99",
        `${pooled.runners.count} processes, ${mib(pooled.runners.kib)} MiB, p99 ${fmt(pooled.warm.p99)} ms`,
        `a process per session: ${lat.runners.count} processes, ${mib(lat.runners.kib)} MiB, p99 ${fmt(lat.warm.p99)} ms`,
        `memory ratio ${fmt(pooled.runners.kib / lat.runners.kib)}×, p99 ratio ${fmt(pooled.warm.p99 / lat.warm.p99)}×`,
      );
    } finally {
      await solo.stop();
      await rm(soloDir, { recursive: true, force: true });
    }
  }
  const sdkPerSecond = await sdkThroughput(clients, model.url, quick ? 2_000 : 20_000);
  const thr = await measureThroughput(clients, server.url, quick ? 5_000 : 50_000);
  row(
    "text deltas per second, 1 session",
    `${fmt(thr.perSecond)} /s (${thr.count} deltas)`,
    `baseline SDK direct ${fmt(sdkPerSecond)} /s`,
    `ratio ${fmt(thr.perSecond / sdkPerSecond)}×`,
  );
  const long = await measureLongSession(server.url, server.child.pid!, { growRuns: quick ? 20 : 100, pageBytes: 20_000, runs: 10 });
  row(
    `a long session: server CPU (all threads) and time from submit to idle per one-word run, at ${fmt(long.conversationMiB, 1)} MiB of conversation`,
    `${fmt(long.long.cpuMs, 0)} ms CPU, ${fmt(long.long.wallMs, 0)} ms`,
    `a fresh session: ${fmt(long.short.cpuMs, 0)} ms CPU, ${fmt(long.short.wallMs, 0)} ms`,
    `CPU ratio ${fmt(long.long.cpuMs / long.short.cpuMs)}×`,
  );
  const mem = await measureIdleMemory(env, quick ? 100 : 1_000);
  row(
    `memory per idle connected session (${mem.sessions} sessions)`,
    `${fmt(mem.harnessKiB)} KiB`,
    `baseline bare ws connection ${fmt(mem.baselineKiB)} KiB`,
    `ratio ${fmt(mem.harnessKiB / mem.baselineKiB)}×`,
  );
  const start = await measureRunStart(fake, quick ? 3 : 7);
  row(
    "`harness run`: start to first model request",
    `median ${fmt(start.harnessMs, 0)} ms`,
    `baseline bare node + one HTTP request ${fmt(start.baselineMs, 0)} ms`,
    `ratio ${fmt(start.harnessMs / start.baselineMs)}×`,
  );
  row(
    "`harness run`: start to first model request, the model SDK from its bundle against file by file",
    `median ${fmt(start.harnessMs, 0)} ms`,
    `file by file (HARNESS_BUNDLE_DEPS=0) ${fmt(start.fileByFileMs, 0)} ms`,
    `ratio ${fmt(start.harnessMs / start.fileByFileMs)}×`,
  );
  row(
    "`harness run`: start to first model request, from the startup bundle against from its sources",
    `median ${fmt(start.harnessMs, 0)} ms`,
    `from its sources (HARNESS_BUNDLE=0) ${fmt(start.sourcesMs, 0)} ms`,
    `ratio ${fmt(start.harnessMs / start.sourcesMs)}×`,
  );
  const runnerStart = await measureRunnerStart(quick ? 3 : 7);
  row(
    "runner process: spawn to listening, from its startup bundle against from its sources",
    `median ${fmt(runnerStart.bundledMs, 0)} ms`,
    `from its sources (HARNESS_BUNDLE=0) ${fmt(runnerStart.sourcesMs, 0)} ms`,
    `ratio ${fmt(runnerStart.bundledMs / runnerStart.sourcesMs)}×`,
  );
  const runCpu = await measureRunCpu(model.url, quick ? 50 : 300);
  row(
    "runner CPU per short run (a one-word answer), runs one after the other",
    `${fmt(runCpu.runnerMs)} ms`,
    `a bare relay passing the same model call on ${fmt(runCpu.relayMs)} ms`,
    `ratio ${fmt(runCpu.runnerMs / runCpu.relayMs)}×`,
  );
  const otel = await measureTelemetryCpu(model.url, quick ? 10 : 30, quick ? 5 : 10);
  row(...telemetryCpuRow(otel));
  const loop = await measureToolRoundTrip(quick ? 10 : 30);
  row(
    "agent loop: tool round trip (reply with a TodoWrite call received → next request sent), median",
    `${fmt(loop.loopMs)} ms`,
    `the same requests sent back to back with no loop ${fmt(loop.bareMs)} ms`,
    `engine overhead ${fmt(loop.loopMs - loop.bareMs)} ms`,
  );
  row("first request's fixed prefix (system + tools), no project configuration", `${fmt(loop.prefix.bytes)} bytes, ~${fmt(loop.prefix.tokens)} tokens (chars/4)`, "", "");
  const grep = await measureGrep(quick ? 3 : 7);
  row(
    `Grep tool over node_modules (files_with_matches, ${grep.files} files)`,
    `median ${fmt(grep.toolMs)} ms`,
    `ripgrep run directly ${fmt(grep.rgMs)} ms`,
    `ratio ${fmt(grep.toolMs / grep.rgMs)}×`,
  );
  const sandbox = await measureSandbox(quick ? 5 : 21);
  if ("unavailable" in sandbox) console.log(`(the Bash sandbox cannot run here, ${sandbox.unavailable}: its figure is skipped)`);
  else row("Bash tool running `true` in the sandbox (bubblewrap), median", `${fmt(sandbox.sandboxedMs)} ms`, `the same command outside it ${fmt(sandbox.directMs)} ms`, `added ${fmt(sandbox.sandboxedMs - sandbox.directMs)} ms`);
} finally {
  await server.stop();
  await fake.close();
  model.stop();
  clients.stop();
  await rm(dataDir, { recursive: true, force: true });
}

console.log(`\n${machineSpeed()}`);
console.log("\n| figure | Harness | baseline | ratio |\n|---|---|---|---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
