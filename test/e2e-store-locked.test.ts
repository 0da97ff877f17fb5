// Another process holding the session database's lock (a transaction open on harness.db) does not
// stall the server: other sessions and clients are served meanwhile, a write the server cannot make
// is answered 503 naming the lock, and what the sessions did meanwhile is stored once it is gone.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startFakeAnthropic, startHarnessServer, waitFor, MinimalClient, type FakeAnthropic, holdLock } from "@harness/test-utils";

let fake: FakeAnthropic;
let dataDir: string;

before(async () => {
  fake = await startFakeAnthropic();
  dataDir = await mkdtemp(join(tmpdir(), "harness-locked-"));
});
after(async () => {
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
});

const rest = (url: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { ...init, headers: { "content-type": "application/json", "x-harness-user": "bob" } });

test("while another process holds the database's lock, other sessions are served, writes are answered 503, and nothing is lost", async (t) => {
  const modelEnv = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url };
  let server = await startHarnessServer({ dataDir, env: modelEnv });
  t.after(() => server.stop("SIGKILL"));
  const kept = { userId: "bob", sessionId: "kept" };
  const client = await MinimalClient.connect(server.url, kept);
  fake.push({ text: "stored before" });
  client.send({ type: "submit", prompt: "first" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");

  const lock = await holdLock(join(dataDir, "harness.db"));
  t.after(() => lock.child.kill("SIGKILL"));
  const stillLocked = () => assert.equal(lock.child.exitCode, null, "the lock is still held");

  // The session whose writes wait goes on.
  fake.push({ text: "written later" });
  client.send({ type: "submit", prompt: "second" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete");
  stillLocked();

  // A write the server's thread would make is refused, naming the lock.
  const refused = await rest(server.url, "/sessions", { method: "POST", body: JSON.stringify({ sessionId: "made" }) });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.match(((await refused.json()) as { error: string }).error, /locked by another process/);
  stillLocked();

  // A client of another session is served, and the listing answered.
  const other = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "other" });
  fake.push({ text: "served meanwhile" });
  other.send({ type: "submit", prompt: "hello there" });
  await other.waitForState((s) => s.status === "idle" && s.messages[1]?.content === "served meanwhile");
  const listed = await rest(server.url, "/sessions");
  assert.equal(listed.status, 200);
  assert.ok(((await listed.json()) as { sessionId: string }[]).some((s) => s.sessionId === "kept"));
  stillLocked();

  await lock.release();
  const made = await rest(server.url, "/sessions", { method: "POST", body: JSON.stringify({ sessionId: "made" }) });
  assert.equal(made.status, 201);
  // The runner started meanwhile is recorded once it can be, for a later server to adopt.
  const db = new DatabaseSync(join(dataDir, "harness.db"), { readOnly: true });
  t.after(() => db.close());
  const runnerOf = db.prepare("SELECT pid FROM runners WHERE user_id = 'bob' AND session_id = 'other'");
  await waitFor(() => runnerOf.get() !== undefined, "the runner of the other session to be recorded");
  const finished = { kept: structuredClone(client.state!.messages), other: structuredClone(other.state!.messages) };
  await Promise.all([client.close(), other.close()]);
  assert.equal(await server.stop("SIGTERM"), 0);

  // Stored: what came before the lock and what came while it was held.
  server = await startHarnessServer({ dataDir, env: modelEnv });
  for (const sessionId of ["kept", "other"] as const) {
    const again = await MinimalClient.connect(server.url, { userId: "bob", sessionId });
    await again.waitForState(() => true);
    assert.deepEqual(again.state!.messages, finished[sessionId]);
    await again.close();
  }
  await server.stop();
});
