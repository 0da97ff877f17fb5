// A server killed while another process held the session database's lock: a session it reopened
// then could not be marked open in the file, and its new batches were never stored. The next server
// must not hand out the numbers that session's clients saw: a client that comes back with `since`
// gets the session as it is now, not later batches taken for the ones it missed.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, startHarnessServer, MinimalClient, type FakeAnthropic, holdLock, killQuietly } from "@harness/test-utils";

let fake: FakeAnthropic;
let dataDir: string;

before(async () => {
  fake = await startFakeAnthropic();
  dataDir = await mkdtemp(join(tmpdir(), "harness-locked-crash-"));
});
after(async () => {
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Every process started under `pid` (its runners outlive a killed server). */
function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    let children = "";
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8");
    } catch {
      continue;
    }
    for (const child of children.split(" ").filter(Boolean).map(Number)) found.push(child, ...descendants(child));
  }
  return found;
}

test("a session reopened while the database was locked, then killed with it: the next server reuses none of its seqs", { skip: process.platform !== "linux" }, async (t) => {
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url };
  const ids = { userId: "bob", sessionId: "reopened" };
  let server = await startHarnessServer({ dataDir, env });
  t.after(() => server.stop("SIGKILL"));
  const first = await MinimalClient.connect(server.url, ids);
  fake.push({ text: "stored" });
  first.send({ type: "submit", prompt: "first" });
  await first.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  await first.close();
  // Stored and closed cleanly.
  assert.equal(await server.stop("SIGTERM"), 0);

  server = await startHarnessServer({ dataDir, env });
  const lock = await holdLock(join(dataDir, "harness.db"));
  t.after(() => lock.child.kill("SIGKILL"));
  const witness = await MinimalClient.connect(server.url, ids);
  fake.push({ text: "never stored" });
  witness.send({ type: "submit", prompt: "second" });
  await witness.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", undefined, "the run while locked");
  const seen = { state: structuredClone(witness.state!), seq: witness.seq };
  const orphans = descendants(server.child.pid!);
  t.after(() => orphans.forEach(killQuietly));
  await server.stop("SIGKILL");
  await witness.waitFor((c) => c.closed);
  assert.equal(lock.child.exitCode, null, "the lock was held until the server died");
  await lock.release();

  server = await startHarnessServer({ dataDir, env });
  const fresh = await MinimalClient.connect(server.url, ids);
  await fresh.waitForState(() => true, undefined, "the restarted session");
  assert.deepEqual(fresh.state!.messages.map((m) => m.content), ["first", "stored"], "what was never stored is gone");
  // A longer run than the lost one: numbered from the stored seq, it would pass every seq the witness saw.
  fake.push({ text: "a much longer reply, in many pieces".split(" "), delayMs: 20 });
  fresh.send({ type: "submit", prompt: "third" });
  await fresh.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete");
  for (const frame of fresh.frames) if (frame.type !== "error") assert.ok(frame.seq > seen.seq, `seq ${frame.seq} was handed out before the crash (the witness holds ${seen.seq})`);

  const back = await MinimalClient.connect(server.url, { ...ids, initial: seen });
  await back.waitFor((c) => c.frames.length > 0);
  assert.deepEqual(back.frames.map((f) => f.type), ["state"]);
  assert.deepEqual(back.state, fresh.state);
  await Promise.all([fresh.close(), back.close()]);
  assert.equal(await server.stop("SIGTERM"), 0);
});
