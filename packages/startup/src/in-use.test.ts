import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { buildBundle } from "./build.ts";
import type { BundlePlace } from "./places.ts";
import { buildDir } from "./test-support.ts";

/** A bundle of its own: an entry that says where it runs from, then answers each line on stdin from
 * a module it imports only then (a chunk of the build it loads when first asked), and exits when
 * stdin ends. Each `build(version)` writes the sources of that version and builds them. */
function bundle(t: { after(fn: () => void): void }) {
  // Its real path, as the build lists the files it holds (node_modules/.cache may be a link).
  const dir = realpathSync(buildDir(t));
  const at: BundlePlace = { bundle: join(dir, "harness-cli.mjs"), lock: join(dir, "harness-cli.mjs.lock"), entry: join(dir, "entry.ts"), builder: join(dir, "no-builder.mjs") };
  const builds = join(dir, "harness-cli");
  writeFileSync(at.entry, `process.stdout.write(import.meta.url + "\\n");\nprocess.stdin.on("data", async () => process.stdout.write((await import("./later.ts")).said + "\\n"));\n`);
  const build = async (version: number): Promise<string> => {
    writeFileSync(join(dir, "later.ts"), `export const said = "version ${version}";\n`);
    await sleep(10); // a build refuses a file changed in the millisecond it starts
    await buildBundle(at.entry, at.bundle);
    return /\/([0-9a-f]{16})\/main\.mjs";\n$/.exec(readFileSync(at.bundle, "utf8"))![1];
  };
  /** Makes build `id` two days old. */
  const age = (id: string) => {
    const then = Date.now() / 1000 - 2 * 86_400;
    utimesSync(join(builds, id), then, then);
  };
  return { dir, at, builds, build, age, exists: (id: string) => existsSync(join(builds, id)) };
}

/** A process started as `harness` starts (loadEntry), with a reader of the lines it writes. */
async function start(t: { after(fn: () => void): void }, at: BundlePlace) {
  const script = `import { loadEntry } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, "startup.ts")).href)};\nawait loadEntry(${JSON.stringify(at)}, {});\n`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "pipe"] });
  t.after(() => child.kill("SIGKILL"));
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const line = async () => {
    const next = await lines.next();
    assert.equal(next.done, false, `the process ended early: ${stderr}`);
    return next.value as string;
  };
  return { child, line, ended: once(child, "exit") };
}

test("a build a live process started from is kept whatever its age, and removed by the next build once the process has exited", async (t) => {
  const { at, build, age, exists } = bundle(t);
  const first = await build(1);
  const server = await start(t, at);
  assert.match(await server.line(), new RegExp(`/harness-cli/${first}/main\\.mjs$`), "the process runs from the bundle");

  age(first);
  for (const version of [2, 3, 4]) await build(version);
  assert.equal(exists(first), true, "the build is kept while the process lives");
  server.child.stdin.write("\n");
  assert.equal(await server.line(), "version 1", "the process loads a chunk it had not used yet");

  server.child.stdin.end();
  await server.ended;
  await build(5);
  assert.equal(exists(first), false, "the next build removes it once the process has exited");
});

test("a record of a process that was killed, or of a pid that now names another process, does not keep a build", async (t) => {
  const { at, builds, build, age, exists } = bundle(t);
  const first = await build(1);
  const killed = await start(t, at);
  await killed.line();
  killed.child.kill("SIGKILL");
  await killed.ended;
  const records = join(builds, "in-use");
  assert.deepEqual(readdirSync(records), [`${first}.${killed.child.pid}`], "a killed process leaves its record");
  // This test's own pid, as a process that started at another time would have written it.
  if (existsSync("/proc/self/stat")) writeFileSync(join(records, `${first}.${process.pid}`), "1");

  age(first);
  for (const version of [2, 3, 4]) await build(version);
  assert.equal(exists(first), false);
  assert.deepEqual(readdirSync(records), [], "the records of processes that have ended are removed");
});

test("a start whose record of use cannot be written still runs from its bundle", async (t) => {
  const { at, builds, build } = bundle(t);
  const id = await build(1);
  mkdirSync(builds, { recursive: true });
  writeFileSync(join(builds, "in-use"), "not a directory");
  const server = await start(t, at);
  assert.match(await server.line(), new RegExp(`/harness-cli/${id}/main\\.mjs$`));
  server.child.stdin.write("\n");
  assert.equal(await server.line(), "version 1");
  server.child.stdin.end();
  assert.deepEqual(await server.ended, [0, null]);
});
