import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LOCK_FILE, lockDataDir, withStart } from "./data-dir-lock.ts";
import { testDir } from "./test-helpers.ts";

/** A live process other than this one, and its lock as it would have written it. */
async function otherProcess(t: { after(fn: () => unknown): void }) {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  t.after(() => child.kill("SIGKILL"));
  await once(child, "spawn");
  return { child, lock: JSON.stringify({ pid: child.pid, ...withStart(child.pid!) }) };
}

test("a data directory a live server holds is refused, naming its pid; once it is gone, the lock is taken over", async (t) => {
  const dir = await testDir(t);
  const { child, lock } = await otherProcess(t);
  writeFileSync(join(dir, LOCK_FILE), lock);
  assert.throws(() => lockDataDir(dir), {
    message: `another Harness server (pid ${child.pid}) is using the data directory ${dir}: stop it, or give this one another HARNESS_DATA_DIR`,
  });
  child.kill("SIGKILL");
  await once(child, "exit");
  const taken = lockDataDir(dir);
  assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid, process.pid);
  taken.release();
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
});

test("a stale lock is taken over: a pid now used by a later process, this process's own pid, or a file that does not parse", { skip: process.platform !== "linux" }, async (t) => {
  const dir = await testDir(t);
  const { child } = await otherProcess(t);
  for (const stale of [JSON.stringify({ pid: child.pid, started: "1" }), JSON.stringify({ pid: process.pid }), "{not json", ""]) {
    writeFileSync(join(dir, LOCK_FILE), stale);
    lockDataDir(dir).release();
  }
});

test("release leaves a lock that another server took meanwhile", async (t) => {
  const dir = await testDir(t);
  const lock = lockDataDir(dir);
  const { lock: other } = await otherProcess(t);
  writeFileSync(join(dir, LOCK_FILE), other);
  lock.release();
  assert.equal(readFileSync(join(dir, LOCK_FILE), "utf8"), other);
});

test("servers starting at once on a stale lock: exactly one takes the directory over", async (t) => {
  const dir = await testDir(t);
  const script = `
    const { lockDataDir } = await import(${JSON.stringify(new URL("./data-dir-lock.ts", import.meta.url).href)});
    const at = Number(process.argv[1]);
    while (Date.now() < at) {}
    try { lockDataDir(process.argv[2]); console.log("got"); } catch (error) { console.log(error.message.includes("another Harness server") ? "refused" : "error: " + error.message); }
    // Held until every process has tried: a late starter on a busy machine must meet a live holder.
    process.stdin.resume();
    process.stdin.on("end", () => process.exit(0));`;
  for (let round = 0; round < 4; round++) {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 999_999_999 }));
    const at = Date.now() + 600;
    const children = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script, String(at), dir], { stdio: ["pipe", "pipe", "inherit"] });
      t.after(() => child.kill());
      let out = "";
      const said = new Promise<string>((resolve) => {
        child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d).includes("\n") && resolve(out.trim()));
        child.once("close", () => resolve(out.trim() || "ended saying nothing"));
      });
      return { child, said };
    });
    const outcomes = await Promise.all(children.map((c) => c.said));
    for (const { child } of children) child.stdin.end();
    await Promise.all(children.map(({ child }) => once(child, "close")));
    assert.deepEqual(outcomes.sort(), ["got", "refused", "refused", "refused"], `round ${round}`);
  }
});
