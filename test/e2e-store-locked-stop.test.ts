// A server stopped while another process holds the session database's lock waits a few seconds for
// the lock to go, so that its sessions' last changes are stored; when it does not go, the log names
// what was not stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startHarnessServer, storedSeq, waitFor, MinimalClient, holdLock } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-locked-stop-");

/** A server whose session `ids` ran one prompt stored, then one while the file is locked. */
async function changedWhileLocked(ids: { userId: string; sessionId: string }) {
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  const client = await MinimalClient.connect(server.url, ids);
  fake().push({ text: "stored before" });
  client.send({ type: "submit", prompt: "first" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  // Stored before the lock is taken (the sessions write a moment after a change).
  await waitFor(() => storedSeq(dataDir, ids) >= client.seq, "the first run to be stored");
  const lock = await holdLock(join(dataDir, "harness.db"));
  fake().push({ text: "said while locked" });
  client.send({ type: "submit", prompt: "second" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete");
  const messages = structuredClone(client.state!.messages);
  await client.close();
  return { dataDir, server, lock, messages };
}

test("a server stopped while the database is locked stores its sessions' last changes once the lock goes, saying what it waits for", async (t) => {
  const ids = { userId: "bob", sessionId: "waited" };
  const { dataDir, server, lock, messages } = await changedWhileLocked(ids);
  t.after(() => lock.child.kill("SIGKILL"));
  t.after(() => server.stop("SIGKILL"));
  const stopped = server.stop("SIGTERM");
  await waitFor(() => /waiting up to 5 s to store the last changes of session bob\/waited: .*locked by another process/.test(server.output()), "the server to say what it waits for");
  assert.equal(server.child.exitCode, null, `the server waits for the lock:\n${server.output()}`);
  await lock.release();
  assert.equal(await stopped, 0);
  assert.match(server.output(), /the last changes of every session are stored/);

  const again = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => again.stop("SIGKILL"));
  const client = await MinimalClient.connect(again.url, ids);
  await client.waitForState(() => true);
  assert.deepEqual(client.state!.messages, messages);
  await client.close();
  assert.equal(await again.stop(), 0);
});

test("a server stopped while the database stays locked gives up after a few seconds, naming what it did not store", async (t) => {
  const ids = { userId: "bob", sessionId: "lost" };
  const { dataDir, server, lock } = await changedWhileLocked(ids);
  t.after(() => lock.child.kill("SIGKILL"));
  t.after(() => server.stop("SIGKILL"));
  const started = performance.now();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.ok(performance.now() - started < 15_000, `stopped after ${Math.round(performance.now() - started)} ms`);
  assert.match(server.output(), /not stored: session bob\/lost: changes \d+ to \d+, .*that it was closed \(.*locked by another process/);
  await lock.release();

  const again = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => again.stop("SIGKILL"));
  const client = await MinimalClient.connect(again.url, ids);
  await client.waitForState(() => true);
  assert.deepEqual(client.state!.messages.map((m) => m.content), ["first", "stored before"], "what was not stored is gone, as the log said");
  await client.close();
  assert.equal(await again.stop(), 0);
});
