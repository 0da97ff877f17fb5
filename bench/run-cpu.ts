// CPU a runner process spends on one short run (a query answered with one word), runs one after
// the other, beside the CPU a bare relay (relay-hops.ts, runner mode) spends passing the same model
// call on: what a run costs beyond the request itself.
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunnerClient } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { socketPathOf } from "@harness/runner/unix-socket";
import { perCall, startListening, startRelay } from "./lib.ts";

const WARM_UP = 20;

export async function measureRunCpu(modelUrl: string, runs: number): Promise<{ runnerMs: number; relayMs: number }> {
  const workspace = await mkdtemp(join(tmpdir(), "harness-bench-runcpu-"));
  const env = { ...process.env, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: modelUrl, HARNESS_WORKSPACE: workspace, HARNESS_RUNNER_SOCKET_DIR: workspace, HOME: workspace };
  const runner = await startListening("../packages/runner/bin/runner.mjs", ["--exit-with-stdin"], { env, cwd: workspace });
  const relay = await startRelay(modelUrl, 1);
  try {
    // Both on a Unix socket, reached over kept connections, as the server reaches its runners.
    const client = createRunnerClient(runner.url, { transport: nodeTransport() });
    let n = 0;
    const oneRun = async () => {
      for await (const event of client.query({ prompt: "hello", permissionMode: "bypassPermissions", userMessageId: `m${n++}` }, { signal: new AbortController().signal })) void event;
    };
    const runnerMs = (await perCall([runner.pid], oneRun, runs, WARM_UP)).cpuMs;
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
    runner.stop();
    await rm(workspace, { recursive: true, force: true });
  }
}
