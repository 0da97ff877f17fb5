import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isFresh } from "@harness/llm/bundled-require";
import { startFakeAnthropic, textInWords } from "@harness/test-utils";
import { tempDir, withFake } from "../../cli/src/test-support.ts";
import { buildBundle } from "./build.ts";
import { BUNDLER, CLI_BUNDLE, ROOT, RUNNER_BUNDLE } from "./places.ts";
import { buildDir } from "./test-support.ts";

function node(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** A module for --import that appends to `log` the URL of every module the process resolves. */
const recordingHook = (log: string) => `import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r; } });
`;

test("the CLI built into a bundle answers as from its sources, and a run from it loads none of them", async (t) => {
  const out = join(buildDir(t), "harness-cli.mjs");
  const built = await buildBundle(CLI_BUNDLE.entry, out);
  assert.ok(built.chunks > 1, "the code is split where the sources import dynamically");

  // --version reads the package's own package.json beside its sources.
  const [fromBundle, fromSources] = await Promise.all([node([out, "--version"]), node([CLI_BUNDLE.entry, "--version"])]);
  assert.equal(fromBundle.code, 0, fromBundle.stderr);
  assert.match(fromBundle.stdout, /^harness \d+\.\d+\.\d+ \(node v24\./);
  assert.equal(fromBundle.stdout, fromSources.stdout);

  const dir = tempDir(t);
  const fake = await withFake(t, startFakeAnthropic({ respond: () => textInWords("answered from the bundle") }));
  const log = join(dir, "modules.txt");
  const hook = join(dir, "record.mjs");
  writeFileSync(hook, recordingHook(log));
  const env = { HOME: dir, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.url, NODE_OPTIONS: `--import ${hook}` };
  const run = await node([out, "run", "--cwd", dir, "hello"], env, dir);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "answered from the bundle");
  assert.equal(fake.requests.length, 1);
  const loaded = readFileSync(log, "utf8").split("\n");
  assert.deepEqual(loaded.filter((url) => url.includes("/packages/") || url.includes("/node_modules/zod/")), [], "no source module and no file of zod is loaded");
  const chunks = loaded.filter((url) => /\/harness-cli\/[0-9a-f]{16}\//.test(url));
  assert.ok(chunks.some((url) => /\/main\.mjs$/.test(url)));
  // Under node_modules no package.json names them modules: a .js chunk would be parsed twice.
  assert.deepEqual(chunks.filter((url) => !url.endsWith(".mjs")), [], "every chunk is named an ES module");
  // The builder is among the files the bundle holds: another version of it makes the bundle stale.
  assert.ok(readFileSync(out, "utf8").split("\n")[0].includes(JSON.stringify(BUNDLER)));
});

test("the runner built into a bundle starts, answers its health check and loads none of its sources", async (t) => {
  const out = join(buildDir(t), "harness-runner.mjs");
  await buildBundle(RUNNER_BUNDLE.entry, out);
  const dir = tempDir(t);
  const log = join(dir, "modules.txt");
  const hook = join(dir, "record.mjs");
  writeFileSync(hook, recordingHook(log));
  const env = { ...process.env, HARNESS_WORKSPACE: join(dir, "workspace"), HARNESS_RUNNER_IDLE_EXIT_MS: "0", NODE_OPTIONS: `--import ${hook}` };
  const child = spawn(process.execPath, [out], { env, stdio: ["ignore", "pipe", "inherit"] });
  t.after(() => child.kill());
  const [first] = (await once(child.stdout, "data")) as [Buffer];
  const listening = JSON.parse(first.toString().split("\n")[0]) as { event: string; url: string };
  assert.equal(listening.event, "listening");
  const health = (await (await fetch(`${listening.url}/health`)).json()) as { ok: boolean; busy: boolean };
  assert.equal(health.ok, true);
  assert.equal(health.busy, false);
  assert.deepEqual(readFileSync(log, "utf8").split("\n").filter((url) => url.includes("/packages/")), []);
});

test("the bundle lists every file it holds, and building unchanged sources again keeps the same build", async (t) => {
  const dir = buildDir(t);
  const out = join(dir, "harness-cli.mjs");
  await buildBundle(CLI_BUNDLE.entry, out);
  const first = readFileSync(out, "utf8");
  const listed = (JSON.parse(first.slice(first.indexOf("{"), first.indexOf("\n"))) as { files: [string][] }).files.map(([file]) => file.slice(ROOT.length));
  for (const file of ["packages/cli/src/main.ts", "packages/agent/src/loop/run-agent.ts", "packages/llm/src/anthropic/provider.ts", "node_modules/zod/v4/classic/schemas.js"]) {
    assert.ok(listed.includes(file), `${file} is listed`);
  }
  assert.equal(listed.some((file) => file.includes("@anthropic-ai/sdk")), false, "the model SDK is left to Node (it has a bundle of its own)");
  assert.equal(isFresh(out), true);

  await buildBundle(CLI_BUNDLE.entry, out);
  assert.equal(readFileSync(out, "utf8"), first);
  assert.deepEqual(readdirSync(join(dir, "harness-cli")).length, 1);
});

test("a build that cannot resolve an import fails, naming it, and leaves no bundle", async (t) => {
  const dir = buildDir(t);
  const entry = join(dir, "entry.ts");
  writeFileSync(entry, `import { gone } from "./gone.ts";\nconsole.log(gone);\n`);
  const out = join(dir, "harness-cli.mjs");
  await assert.rejects(buildBundle(entry, out), /Could not resolve "\.\/gone\.ts"/);
  assert.deepEqual(readdirSync(dir), ["entry.ts"]);
});
