import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { withLock, withLockSync } from "./lock-file.ts";

const dir = mkdtempSync(join(tmpdir(), "harness-lock-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const lockPath = () => join(dir, `file-${++n}.lock`);
const times = { staleMs: 10_000, waitMs: 200 };

describe("sign-in file locks", () => {
  test("a lock is released after the work, and after work that throws", async () => {
    const path = lockPath();
    assert.equal(withLockSync(path, times, () => existsSync(path)), true);
    assert.equal(existsSync(path), false);
    await assert.rejects(withLock(path, times, async () => Promise.reject(new Error("failed"))), /failed/);
    assert.equal(existsSync(path), false);
  });

  test("a lock left by a program that has ended is taken over at once", async () => {
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const path = lockPath();
    writeFileSync(path, `${hostname()} ${ended.stdout} left`);
    assert.equal(withLockSync(path, times, () => "ran"), "ran");
    writeFileSync(path, `${hostname()} ${ended.stdout} left`);
    assert.equal(await withLock(path, times, async () => "ran"), "ran");
    assert.equal(existsSync(path), false);
  });

  test("a lock held longer than it may be is taken over; one held by a live program is waited for, then said naming the file", async () => {
    const path = lockPath();
    writeFileSync(path, `${hostname()} ${process.pid} held`);
    assert.throws(() => withLockSync(path, times, () => "ran"), new RegExp(`${path.replace(/[.\\]/g, "\\$&")} is held by another harness program`));
    await assert.rejects(withLock(path, times, async () => "ran"), /is held by another harness program and was not released in time; remove it if no harness program is running/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    assert.equal(withLockSync(path, times, () => "ran"), "ran");
  });

  test("a lock that cannot be written (a full disk) is said naming the file and leaves no empty lock behind to wait for", () => {
    const path = lockPath();
    // A file size limit of 0 (its signal ignored) fails writes with EFBIG, as a full disk fails them with ENOSPC.
    const module = fileURLToPath(new URL("./lock-file.ts", import.meta.url));
    const script = `import { withLockSync } from ${JSON.stringify(module)};
      try { withLockSync(${JSON.stringify(path)}, { staleMs: 10000, waitMs: 200 }, () => {}); console.log("taken"); } catch (error) { console.log(error.message); }`;
    const child = spawnSync("bash", ["-c", 'trap "" XFSZ; ulimit -f 0; exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: "utf8" });
    assert.match(child.stdout, new RegExp(`^cannot make the lock file ${path.replace(/[.\\]/g, "\\$&")}: `), child.stderr);
    assert.equal(existsSync(path), false);
  });
  test("a lock file that cannot be read (another user's, mode 000) is judged by its age: waited for while recent, taken over once stale", async (t) => {
    const path = lockPath();
    // root reads a file of mode 000: a FIFO, which is never opened (the read would wait for a
    // writer), stands in for it.
    if (process.getuid?.() === 0) spawnSync("mkfifo", ["-m", "600", path]);
    else writeFileSync(path, `${hostname()} ${process.pid} unreadable`, { mode: 0o000 });
    assert.throws(() => withLockSync(path, times, () => "ran"), /is held by another harness program and was not released in time/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    // Waiting is for a minute: a takeover that waited first would end long after these 30 s.
    const started = Date.now();
    assert.equal(await withLock(path, { ...times, waitMs: 60_000 }, async () => "ran"), "ran");
    assert.ok(Date.now() - started < 30_000, "taken over at once, not after the wait");
    assert.equal(existsSync(path), false);
  });

  test("a stale lock that cannot be removed fails at once, naming the file and what to do", async () => {
    // A directory in place of the lock file: it cannot be read as one, and a lock's takeover never
    // removes a directory. (The same message comes when a stale lock's folder, or the sticky /tmp,
    // keeps this user from removing another's file; root cannot be kept from it, so it is not tested.)
    const path = lockPath();
    mkdirSync(path);
    writeFileSync(join(path, "inside"), "");
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const started = Date.now();
    const message = `the lock file ${path} is stale (unchanged for 60 s, longer than a harness program holds one) but cannot be removed: it is a directory, not a lock file; remove it if no harness program is running`;
    // Waiting is for a minute: both failing after waiting would end long after these 30 s.
    await assert.rejects(withLock(path, { staleMs: 10_000, waitMs: 60_000 }, async () => "ran"), { message });
    assert.throws(() => withLockSync(path, { staleMs: 10_000, waitMs: 60_000 }, () => "ran"), { message });
    assert.ok(Date.now() - started < 30_000, "failed at once, not after the wait");
    assert.ok(existsSync(join(path, "inside")), "what it holds is left alone");
  });

  test("a lock file that cannot be made in a folder that is not writable says to make the folder writable", (t) => {
    const folder = join(dir, "read-only");
    mkdirSync(folder);
    chmodSync(folder, 0o555);
    t.after(() => chmodSync(folder, 0o755));
    // root writes in any folder, but not in Linux's /sys.
    const readOnly = !canWrite(folder) ? folder : process.platform === "linux" && !canWrite("/sys") ? "/sys" : undefined;
    if (readOnly === undefined) return t.skip("no folder here is read-only to this user");
    const path = join(readOnly, "sign-in.json.lock");
    const message = new RegExp(`^cannot make the lock file ${path.replace(/[.\\]/g, "\\$&")}: the folder ${readOnly.replace(/[.\\]/g, "\\$&")} is not writable \\((permission denied|a read-only file system)\\): make it writable for this user, as the file the lock guards is written there too$`);
    assert.throws(() => withLockSync(path, times, () => "ran"), { message });
  });

  test("a lock file whose folder does not exist says so", () => {
    const path = join(dir, "missing", "sign-in.json.lock");
    assert.throws(() => withLockSync(path, times, () => "ran"), { message: new RegExp(`^cannot make the lock file .*: the folder ${join(dir, "missing").replace(/[.\\]/g, "\\$&")} does not exist$`) });
  });
});

function canWrite(folder: string): boolean {
  const probe = join(folder, `probe-${process.pid}`);
  try {
    writeFileSync(probe, "");
    rmSync(probe);
    return true;
  } catch {
    return false;
  }
}
