import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createRunnerClient } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { processAlive, SERVER_GC_FLAGS } from "@harness/test-utils";
import { GC_FLAGS, RUNNER_GC_FLAGS } from "../gc-flags.ts";
import { MAX_LOG_BYTES, spawnRunner } from "./process.ts";
import { testDir, waitFor } from "../test-helpers.ts";

/** Makes `runner-<pid>.sock` in `dir` from a process that is then killed, as a runner killed with
 * SIGKILL leaves its socket; returns its path. */
async function deadRunnersSocket(dir: string): Promise<string> {
  const child = spawn(process.execPath, ["-e", `require("net").createServer().listen(require("path").join(${JSON.stringify(dir)}, "runner-" + process.pid + ".sock"), () => process.kill(process.pid, "SIGKILL"))`]);
  await once(child, "exit");
  const path = join(dir, `runner-${child.pid}.sock`);
  assert.ok(statSync(path).isSocket(), "the killed process left its socket");
  return path;
}

test("a runner the server starts listens on a socket in its directory; sockets of runners that died are cleared away, nothing else", async (t) => {
  const dir = await testDir(t);
  const dead = await deadRunnersSocket(dir);
  // A live process's socket, and a file that only has a socket's name, stay.
  const live = createServer().listen(join(dir, `runner-${process.pid}.sock`));
  await once(live, "listening");
  t.after(() => live.close());
  writeFileSync(join(dir, "runner-1.sock"), "not a socket");

  const lines: string[] = [];
  const runner = await spawnRunner({ workspace: dir, env: { ...process.env }, logFile: join(dir, "runner-0.log"), socketDir: dir, log: (line) => lines.push(line) });
  t.after(() => runner.stop(1000));
  assert.equal(runner.url, `http+unix://${encodeURIComponent(join(dir, `runner-${runner.pid}.sock`))}`);
  // The log names the socket as a path, which an operator can look for, not as the encoded URL.
  assert.deepEqual(lines, [`runner ${runner.pid} listens on ${join(dir, `runner-${runner.pid}.sock`)}; its output goes to ${join(dir, "runner-0.log")}`]);
  assert.equal((await createRunnerClient(runner.url, { transport: nodeTransport(), token: runner.token }).health()).ok, true);
  // Its garbage is collected as gc-flags.ts says.
  const cmdline = readFileSync(`/proc/${runner.pid}/cmdline`, "utf8").split("\0");
  for (const flag of RUNNER_GC_FLAGS) assert.ok(cmdline.includes(flag), flag);
  // startHarnessServer starts servers for tests as `bin/harness serve` does.
  assert.deepEqual(SERVER_GC_FLAGS, GC_FLAGS);

  assert.equal(existsSync(dead), false, "the dead runner's socket is removed");
  assert.ok(existsSync(join(dir, `runner-${process.pid}.sock`)));
  assert.ok(existsSync(join(dir, "runner-1.sock")));
});

test("a runner killed by a signal takes what it started in its process group with it (no orphan outlives it)", async (t) => {
  const dir = await testDir(t);
  const pidFile = join(dir, "child.pid");
  // A stand-in runner: starts a child in its own process group (as the sandbox's network relays
  // are), then says where it listens, and serves nothing.
  const main = join(dir, "fake-runner.mjs");
  writeFileSync(
    main,
    `import { spawn } from "node:child_process"; import { writeFileSync } from "node:fs";
const child = spawn("sleep", ["300"], { stdio: "ignore" });
writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
console.log(JSON.stringify({ event: "listening", url: "http://127.0.0.1:9" }));
setInterval(() => {}, 1000);`,
  );
  const runner = await spawnRunner({ workspace: dir, env: { ...process.env }, logFile: join(dir, "runner-0.log"), mainPath: main });
  t.after(() => runner.stop(1000));
  await waitFor(() => existsSync(pidFile), "the child to start");
  const childPid = Number(readFileSync(pidFile, "utf8"));
  assert.ok(processAlive(childPid));
  process.kill(runner.pid!, "SIGKILL");
  await runner.exited;
  await waitFor(() => !processAlive(childPid), "the runner's leftover child to be killed");
});

test("a runner started with a debug filter is told it and its debug file beside its log, which is set aside past its size as the log is; one without, neither", async (t) => {
  const dir = await testDir(t);
  const seen = join(dir, "seen.json");
  // A stand-in runner: writes down what it was told, then says where it listens.
  const main = join(dir, "fake-runner.mjs");
  writeFileSync(
    main,
    `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ debug: process.env.HARNESS_DEBUG ?? null, file: process.env.HARNESS_DEBUG_FILE ?? null }));
console.log(JSON.stringify({ event: "listening", url: "http://127.0.0.1:9" }));
setInterval(() => {}, 1000);`,
  );
  const logFile = join(dir, "runner-0.log");
  const debugFile = join(dir, "runner-0.debug.log");
  writeFileSync(debugFile, "x".repeat(MAX_LOG_BYTES + 1));
  const lines: string[] = [];
  // The server's own setting never reaches a runner as it stands: only as the server hands it on.
  const env = { ...process.env, HARNESS_DEBUG: "api", HARNESS_DEBUG_FILE: "/elsewhere.log" };
  const runner = await spawnRunner({ workspace: dir, env, logFile, mainPath: main, debug: "", log: (line) => lines.push(line) });
  assert.deepEqual(JSON.parse(readFileSync(seen, "utf8")), { debug: "1", file: debugFile });
  assert.equal(statSync(`${debugFile}.1`).size, MAX_LOG_BYTES + 1, "the old debug log is set aside");
  assert.match(lines[0]!, new RegExp(`its output goes to ${logFile}, its debug log to ${debugFile}$`));
  await runner.stop(1000);

  const filtered = await spawnRunner({ workspace: dir, env, logFile, mainPath: main, debug: "mcp,hooks" });
  assert.deepEqual(JSON.parse(readFileSync(seen, "utf8")), { debug: "mcp,hooks", file: debugFile });
  await filtered.stop(1000);

  const plain = await spawnRunner({ workspace: dir, env, logFile, mainPath: main });
  t.after(() => plain.stop(1000));
  assert.deepEqual(JSON.parse(readFileSync(seen, "utf8")), { debug: null, file: null });
});
