// A runner process from spawn to its "listening" line, from its startup bundle (packages/startup)
// against from its sources (HARNESS_BUNDLE=0), alternated: what a session's first submit waits for
// when its runner is not started yet, before the query itself.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, now } from "./lib.ts";

const runnerMain = fileURLToPath(new URL("../packages/runner/bin/runner.mjs", import.meta.url));

async function timeToListening(workspace: string, env: Record<string, string>): Promise<number> {
  const started = now();
  const child = spawn(process.execPath, [runnerMain], {
    env: { ...process.env, ...env, HARNESS_WORKSPACE: workspace, HARNESS_RUNNER_IDLE_EXIT_MS: "0" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  await once(child.stdout, "data");
  const ms = now() - started;
  child.kill();
  await once(child, "exit");
  return ms;
}

export async function measureRunnerStart(runs: number) {
  const dir = await mkdtemp(join(tmpdir(), "harness-runnerstart-"));
  const bundled: number[] = [];
  const sources: number[] = [];
  for (let i = 0; i < runs; i++) {
    bundled.push(await timeToListening(join(dir, "workspace"), {}));
    sources.push(await timeToListening(join(dir, "workspace"), { HARNESS_BUNDLE: "0" }));
  }
  await rm(dir, { recursive: true, force: true });
  return { bundledMs: median(bundled), sourcesMs: median(sources) };
}
