// The lock the install scripts take so that two first starts do not install Node or the
// dependencies at once (scripts/lock.sh): with flock, as on Linux, and without, as on macOS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const lockScript = new URL("../scripts/lock.sh", import.meta.url).pathname;

function tempDir(t: { after(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-lock-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A PATH holding only what the lock and these scripts use, and flock only when `withFlock`. */
function toolPath(dir: string, withFlock: boolean): string {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  for (const tool of ["mkdir", "rm", "sleep", "sh", ...(withFlock ? ["flock"] : [])]) {
    const found = spawnSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    assert.ok(found, `${tool} is on this machine`);
    symlinkSync(found, join(bin, tool));
  }
  return bin;
}

/** Runs `body` in a subshell holding the lock at `lock`, as the install scripts do (under their
 * `set -euo pipefail`), after `prelude`. */
function holder(path: string, lock: string, body: string, prelude = ""): Promise<number> {
  const script = `set -euo pipefail\n${prelude}\n. ${JSON.stringify(lockScript)}\n( hold_lock ${JSON.stringify(lock)}\n${body}\n)`;
  const child = spawn("/bin/bash", ["-c", script], { env: { PATH: path }, stdio: "inherit" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

for (const withFlock of [true, false]) {
  test(`processes holding the install lock take turns ${withFlock ? "with flock" : "without flock (macOS)"}, and the lock is free again once they end`, async (t) => {
    const dir = tempDir(t);
    const path = toolPath(dir, withFlock);
    const log = join(dir, "log");
    const lock = join(dir, "install.lock");
    const codes = await Promise.all([1, 2, 3].map((i) => holder(path, lock, `echo "in ${i}" >>${JSON.stringify(log)}; sleep 0.3; echo "out ${i}" >>${JSON.stringify(log)}`)));
    assert.deepEqual(codes, [0, 0, 0]);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    assert.equal(lines.length, 6);
    for (let i = 0; i < 6; i += 2) assert.equal(lines[i + 1], lines[i].replace("in", "out"), `one at a time: ${lines.join(", ")}`);
    assert.equal(existsSync(`${lock}.d`), false, "no lock directory left behind");
    const started = Date.now();
    assert.equal(await holder(path, lock, "true"), 0);
    // A lock not free would be waited on for a minute (a directory without its pid) or for good.
    assert.ok(Date.now() - started < 10_000, "taken at once");
  });
}

/** A lock without flock (a directory) left by a process that died: `gone` is its pid, no one's now. */
function staleLock(t: { after(fn: () => unknown): void }): { dir: string; path: string; lock: string; gone: string } {
  const dir = tempDir(t);
  const path = toolPath(dir, false);
  const lock = join(dir, "install.lock");
  const gone = spawnSync("/bin/bash", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim();
  mkdirSync(`${lock}.d`);
  writeFileSync(join(`${lock}.d`, "pid"), `${gone}\n`);
  return { dir, path, lock, gone };
}

test("without flock, a lock left by a process that died is taken over", async (t) => {
  const { path, lock } = staleLock(t);
  const started = Date.now();
  assert.equal(await holder(path, lock, "true"), 0);
  // Waited on, it would be for a minute at least.
  assert.ok(Date.now() - started < 10_000, "not waited on");
});

test("without flock, processes that find the same stale lock at once take it over one at a time", async (t) => {
  const { dir, path, lock } = staleLock(t);
  const log = join(dir, "log");
  const codes = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => holder(path, lock, `echo "in ${i}" >>${JSON.stringify(log)}; sleep 0.2; echo "out ${i}" >>${JSON.stringify(log)}`)));
  assert.deepEqual(codes, [0, 0, 0, 0, 0, 0]);
  const lines = readFileSync(log, "utf8").trim().split("\n");
  assert.equal(lines.length, 12);
  for (let i = 0; i < 12; i += 2) assert.equal(lines[i + 1], lines[i].replace("in", "out"), `one at a time: ${lines.join(", ")}`);
  assert.equal(existsSync(`${lock}.d`), false, "no lock directory left behind");
});

test("without flock, a stale lock whose takeover was left by a process that died too is taken over, without spinning", async (t) => {
  const { path, lock, gone } = staleLock(t);
  mkdirSync(`${lock}.d.takeover`);
  writeFileSync(join(`${lock}.d.takeover`, "pid"), `${gone}\n`);
  const script = `set -euo pipefail\n. ${JSON.stringify(lockScript)}\n( hold_lock ${JSON.stringify(lock)}\n)`;
  const child = spawn("/bin/bash", ["-c", script], { env: { PATH: path }, stdio: "inherit" });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // Spinning on the takeover, it would wait a minute at least.
  const timer = setTimeout(() => child.kill(), 20_000);
  t.after(() => clearTimeout(timer));
  assert.equal(await exited, 0, "taken within seconds, not held forever");
  assert.equal(existsSync(`${lock}.d`), false, "no lock directory left behind");
  assert.equal(existsSync(`${lock}.d.takeover`), false, "nor a takeover");
});

test("without flock, under a bash without BASHPID (macOS's bash 3.2), the lock names its holder, a live process, and is released, in a directory of any name", async (t) => {
  const dir = tempDir(t);
  const path = toolPath(dir, false);
  mkdirSync(join(dir, "Jo's files"));
  const lock = join(dir, "Jo's files", "install.lock");
  const pidFile = JSON.stringify(join(`${lock}.d`, "pid"));
  // `unset BASHPID` takes its special meaning away, as bash before 4.0 never had it.
  assert.equal(await holder(path, lock, `read -r owner <${pidFile}; kill -0 "$owner"`, "unset BASHPID"), 0);
  assert.equal(existsSync(`${lock}.d`), false, "no lock directory left behind");
});

test("without flock, a lock whose pid is now another live process's (a reboot reused it) is waited on, saying so and how to free it", async (t) => {
  const dir = tempDir(t);
  const path = toolPath(dir, false);
  const lock = join(dir, "install.lock");
  const other = spawn("sleep", ["30"], { stdio: "ignore" });
  t.after(() => other.kill());
  mkdirSync(`${lock}.d`);
  writeFileSync(join(`${lock}.d`, "pid"), `${other.pid}\n`);
  const script = `set -euo pipefail\n. ${JSON.stringify(lockScript)}\n( hold_lock ${JSON.stringify(lock)}\n)`;
  const child = spawn("/bin/bash", ["-c", script], { env: { PATH: path }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  while (!stderr.includes("\n")) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.match(stderr, new RegExp(`waiting for process ${other.pid}, which holds the lock ${lock}\\.d; if it is not installing, remove that directory`));
  other.kill();
  assert.equal(await exited, 0);
});
