// `harness run` from process start to the first model request, against a bare node process that
// makes one HTTP request to the same fake model, against itself loading the model SDK file by file
// (HARNESS_BUNDLE_DEPS=0) instead of from its bundle, and against itself loading its own modules
// from their sources (HARNESS_BUNDLE=0) instead of from the startup bundle.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeAnthropic } from "@harness/test-utils";
import { median, now } from "./lib.ts";

const cliMain = fileURLToPath(new URL("../packages/cli/bin/harness.mjs", import.meta.url));

async function timeToRequest(fake: FakeAnthropic, args: string[], env: Record<string, string>): Promise<number> {
  const seen = fake.requests.length;
  const started = now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: "ignore" });
  const [request] = (await fake.waitForRequests(seen + 1, 30_000)).slice(seen);
  await new Promise((r) => child.once("exit", r));
  return request.at - started;
}

export async function measureRunStart(fake: FakeAnthropic, runs: number) {
  const cwd = await mkdtemp(join(tmpdir(), "harness-runstart-"));
  // A home of its own: the runs keep their conversations there, and no ~/.claude of the user applies.
  const env = { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url, HOME: cwd };
  const bare = `fetch(${JSON.stringify(fake.url + "/v1/messages")}, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", max_tokens: 1, stream: true, messages: [{ role: "user", content: "hello" }] }) }).then((r) => r.text())`;
  const harness: number[] = [];
  const baseline: number[] = [];
  const fileByFile: number[] = [];
  const sources: number[] = [];
  for (let i = 0; i < runs; i++) {
    harness.push(await timeToRequest(fake, [cliMain, "run", "--cwd", cwd, "hello"], env));
    baseline.push(await timeToRequest(fake, ["-e", bare], env));
    fileByFile.push(await timeToRequest(fake, [cliMain, "run", "--cwd", cwd, "hello"], { ...env, HARNESS_BUNDLE_DEPS: "0" }));
    sources.push(await timeToRequest(fake, [cliMain, "run", "--cwd", cwd, "hello"], { ...env, HARNESS_BUNDLE: "0" }));
  }
  await rm(cwd, { recursive: true, force: true });
  return { harnessMs: median(harness), baselineMs: median(baseline), fileByFileMs: median(fileByFile), sourcesMs: median(sources) };
}
