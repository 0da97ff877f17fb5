// CPU a runner process spends on one short run (a query answered with one word), runs one after
// the other, beside the CPU a bare relay (relay-hops.ts, runner mode) spends passing the same model
// call on: what a run costs beyond the request itself.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunnerClient } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { socketPathOf } from "@harness/runner/unix-socket";
import { perCall, startListening, startRelay } from "./lib.ts";

export const WARM_UP = 20;

export type BenchRunner = { pid: number; oneRun(): Promise<void>; stop(): Promise<void> };

/** A runner process in a workspace of its own (its HOME too, so no user settings reach it), with
 * `env` over the bench's environment (a variable set to undefined is left out); `oneRun` sends it one short query and reads the run to its end. */
export async function startBenchRunner(modelUrl: string, env: Record<string, string | undefined> = {}): Promise<BenchRunner> {
  // The workspace in a directory of its own, so that removing that takes the runner's state
  // directory (<workspace>.harness-state, beside it) too.
  const dir = await mkdtemp(join(tmpdir(), "harness-bench-runcpu-"));
  const workspace = join(dir, "workspace");
  await mkdir(workspace);
  const full: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: modelUrl, HARNESS_WORKSPACE: workspace, HARNESS_RUNNER_SOCKET_DIR: workspace, HOME: workspace, ...env };
  for (const [name, value] of Object.entries(full)) if (value === undefined) delete full[name];
  const runner = await startListening("../packages/runner/bin/runner.mjs", ["--exit-with-stdin"], { env: full, cwd: workspace });
  // On a Unix socket, reached over kept connections, as the server reaches its runners.
  const client = createRunnerClient(runner.url, { transport: nodeTransport() });
  let n = 0;
  return {
    pid: runner.pid,
    async oneRun() {
      for await (const event of client.query({ prompt: "hello", permissionMode: "bypassPermissions", userMessageId: `m${n++}` }, { signal: new AbortController().signal })) void event;
    },
    async stop() {
      runner.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function measureRunCpu(modelUrl: string, runs: number): Promise<{ runnerMs: number; relayMs: number }> {
  const runner = await startBenchRunner(modelUrl);
  const relay = await startRelay(modelUrl, 1);
  try {
    const runnerMs = (await perCall([runner.pid], runner.oneRun, runs, WARM_UP)).cpuMs;
    const [hop] = relay.hops;
    const agent = new http.Agent({ keepAlive: true });
    const oneRelay = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request({ socketPath: socketPathOf(new URL(hop.url)), path: "/", method: "POST", agent }, (res) => res.resume().on("end", resolve));
        req.on("error", reject);
        req.end(JSON.stringify({ prompt: "hello" }));
      });
    const relayMs = (await perCall([hop.pid], oneRelay, runs, WARM_UP)).cpuMs;
    agent.destroy();
    return { runnerMs, relayMs };
  } finally {
    relay.stop();
    await runner.stop();
  }
}
