// CPU a runner process spends on one short run (a query answered with one word), runs one after
// the other, beside the CPU a bare relay (relay-hops.ts, runner mode) spends passing the same model
// call on: what a run costs beyond the request itself.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunnerClient } from "@harness/runner/client";
import { cpuMs, startRelay } from "./lib.ts";

const WARM_UP = 20;

export async function measureRunCpu(modelUrl: string, runs: number): Promise<{ runnerMs: number; relayMs: number }> {
  const workspace = await mkdtemp(join(tmpdir(), "harness-bench-runcpu-"));
  const child = spawn(process.execPath, [new URL("../packages/runner/bin/runner.mjs", import.meta.url).pathname], {
    env: { ...process.env, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: modelUrl, HARNESS_WORKSPACE: workspace, HARNESS_RUNNER_PORT: "0", HOME: workspace },
    cwd: workspace,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const relay = await startRelay(modelUrl, 1);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d;
        const found = /"url":"([^"]+)"/.exec(out);
        if (found) resolve(found[1]);
      });
      child.once("exit", (code) => reject(new Error(`the runner exited (${code}) before listening`)));
    });
    const client = createRunnerClient(url);
    let n = 0;
    const oneRun = async () => {
      for await (const event of client.query({ prompt: "hello", permissionMode: "bypassPermissions", userMessageId: `m${n++}` }, { signal: new AbortController().signal })) void event;
    };
    const runnerMs = await perCall(child.pid!, oneRun, runs);
    const hop = relay.pids[1];
    const hopUrl = relay.hopUrls[0];
    const agent = new http.Agent({ keepAlive: true });
    const oneRelay = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(hopUrl, { method: "POST", agent }, (res) => res.resume().on("end", resolve));
        req.on("error", reject);
        req.end(JSON.stringify({ prompt: "hello" }));
      });
    const relayMs = await perCall(hop, oneRelay, runs);
    agent.destroy();
    return { runnerMs, relayMs };
  } finally {
    relay.stop();
    child.kill("SIGTERM");
    await rm(workspace, { recursive: true, force: true });
  }
}

/** CPU of `pid` per call of `once`, after a warm-up. */
async function perCall(pid: number, once: () => Promise<void>, runs: number): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await once();
  const before = await cpuMs([pid]);
  for (let i = 0; i < runs; i++) await once();
  return ((await cpuMs([pid])) - before) / runs;
}
