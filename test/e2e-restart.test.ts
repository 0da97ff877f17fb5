// The server is a real process that can be stopped, killed and started again on the same data dir.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { killQuietly, startHarnessServer, MinimalClient, storedSeq, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-restart-");

test("a restarted server still has the conversation", async () => {
  const dataDir = await newDataDir();
  const ids = { userId: "bob", sessionId: "persisted" };
  fake().push({ text: "remember me" });
  let server = await startHarnessServer({ dataDir, env: modelEnv() });
  const client = await MinimalClient.connect(server.url, ids);
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  const finished = structuredClone(client.state);
  await client.close();
  assert.equal(await server.stop("SIGTERM"), 0);

  server = await startHarnessServer({ dataDir, env: modelEnv() });
  const again = await MinimalClient.connect(server.url, ids);
  await again.waitForState(() => true);
  assert.deepEqual(again.state!.messages, finished!.messages);
  assert.equal(again.state!.status, "idle");
  // And the conversation goes on with its history.
  fake().push({ text: "still here" });
  const before = fake().requests.length;
  again.send({ type: "submit", prompt: "again" });
  await again.waitForState((s) => s.messages[3]?.status === "complete");
  assert.match(JSON.stringify(fake().requests[before].body.messages), /remember me/);
  await again.close();
  await server.stop();
});

test("a run whose runner died with the killed server shows as interrupted after the restart, never running", async () => {
  const dataDir = await newDataDir();
  const ids = { userId: "bob", sessionId: "killed" };
  fake().push({ text: ["half an ans"], hold: new Promise(() => {}) });
  let server = await startHarnessServer({ dataDir, env: modelEnv() });
  const client = await MinimalClient.connect(server.url, ids);
  client.send({ type: "submit", prompt: "long job" });
  await client.waitForState((s) => s.messages[1]?.content === "half an ans", 30_000, "partial text");
  // Killed once the batched store has written what the client saw, as a running server would have.
  await waitFor(() => storedSeq(dataDir, ids) >= client.seq, "the partial text to be stored");
  await server.stop("SIGKILL");
  await client.waitFor((c) => c.closed);
  // The runner outlives a killed server; here it dies too.
  const db = new DatabaseSync(join(dataDir, "harness.db"));
  const runner = db.prepare("SELECT pid FROM runners WHERE user_id = ? AND session_id = ?").get(ids.userId, ids.sessionId) as { pid: number };
  db.close();
  process.kill(runner.pid, "SIGKILL");

  server = await startHarnessServer({ dataDir, env: modelEnv() });
  const again = await MinimalClient.connect(server.url, ids);
  await again.waitForState((s) => s.status !== "running", 15_000, "the run to be written down");
  const state = again.state!;
  assert.equal(state.messages[0].content, "long job");
  assert.notEqual(state.messages[1].status, "running");
  assert.match(state.error ?? "", /interrupted/i);
  // The session is usable again.
  fake().push({ text: "fresh start" });
  again.send({ type: "submit", prompt: "try again" });
  await again.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete");
  await again.close();
  await server.stop();
});

test("a session the killed server never stored does not reuse seqs: a client that saw them gets a state frame, not another session's deltas", async (t) => {
  const dataDir = await newDataDir();
  const ids = { userId: "bob", sessionId: "unstored" };
  fake().push({ text: "first life" });
  let server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop("SIGKILL"));
  const witness = await MinimalClient.connect(server.url, ids);
  witness.send({ type: "submit", prompt: "hello" });
  await witness.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  const seen = { state: structuredClone(witness.state!), seq: witness.seq };
  await witness.close();
  await server.stop("SIGKILL");
  // As if the server had died before its writer stored any of this session.
  const db = new DatabaseSync(join(dataDir, "harness.db"));
  // Its runner outlives the killed server, and the next one will not know of it: the test ends it.
  const orphan = db.prepare("SELECT pid FROM runners WHERE user_id = ? AND session_id = ?").get(ids.userId, ids.sessionId) as { pid: number } | undefined;
  if (orphan) t.after(() => killQuietly(orphan.pid));
  for (const table of ["sessions", "deltas", "activity", "session_marks", "transcript_tails", "runners"]) {
    db.prepare(`DELETE FROM ${table} WHERE user_id = ? AND session_id = ?`).run(ids.userId, ids.sessionId);
  }
  db.close();

  server = await startHarnessServer({ dataDir, env: modelEnv() });
  const fresh = await MinimalClient.connect(server.url, ids);
  await fresh.waitForState(() => true);
  assert.deepEqual(fresh.state!.messages, []);
  assert.ok(fresh.seq > seen.seq, `the new session starts past seq ${seen.seq}, at ${fresh.seq}`);
  fake().push({ text: "second life, a longer reply" });
  fresh.send({ type: "submit", prompt: "something else entirely" });
  await fresh.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  const back = await MinimalClient.connect(server.url, { ...ids, initial: seen });
  await back.waitFor((c) => c.frames.length > 0);
  assert.deepEqual(back.frames.map((f) => f.type), ["state"]);
  assert.deepEqual(back.state, fresh.state);
  await Promise.all([fresh.close(), back.close()]);
  // A clean stop does not move the start of new sessions again.
  assert.equal(await server.stop("SIGTERM"), 0);
  server = await startHarnessServer({ dataDir, env: modelEnv() });
  const other = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "another" });
  await other.waitForState(() => true);
  assert.equal(other.seq, fresh.frames[0].type === "state" ? fresh.frames[0].seq : -1);
  await other.close();
  await server.stop();
});

test("with HARNESS_TOKEN set, connections need the token", async () => {
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), HARNESS_TOKEN: "s3cret" } });
  await assert.rejects(MinimalClient.connect(server.url, { userId: "u", sessionId: "s" }), /401/);
  await assert.rejects(MinimalClient.connect(server.url, { userId: "u", sessionId: "s", token: "wrong" }), /401/);
  const viaQuery = await MinimalClient.connect(server.url, { userId: "u", sessionId: "s", token: "s3cret" });
  await viaQuery.waitForState(() => true);
  const viaHeader = await MinimalClient.connect(server.url, { userId: "u", sessionId: "s", headers: { authorization: "Bearer s3cret" } });
  await viaHeader.waitForState(() => true);
  const health = await fetch(`${server.url}/health`);
  assert.equal(health.status, 401);
  await Promise.all([viaQuery.close(), viaHeader.close()]);
  await server.stop();
});

test("the server refuses a non-loopback address without a token", async () => {
  await assert.rejects(
    startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), HARNESS_HOST: "0.0.0.0", HARNESS_TOKEN: "" } }),
    /HARNESS_TOKEN/,
  );
});

test("bad connection parameters are refused with a reason", async () => {
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: modelEnv() });
  await assert.rejects(MinimalClient.connect(server.url, { userId: "../etc", sessionId: "s" }), /400/);
  await assert.rejects(MinimalClient.connect(server.url, { userId: "u", sessionId: "s", since: -3 }), /400/);
  await server.stop();
});

test("/cost after the server restarts counts the conversation's runs from before it", async (t) => {
  const dataDir = await newDataDir();
  const ids = { userId: "bob", sessionId: "costly" };
  // $3 and $15 a million tokens: 1000 in and 100 out cost $0.0045.
  fake().push({ text: "first answer", usage: { input_tokens: 1000, output_tokens: 100 } });
  let server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop("SIGKILL"));
  const client = await MinimalClient.connect(server.url, ids);
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  await client.close();
  assert.equal(await server.stop("SIGTERM"), 0);

  server = await startHarnessServer({ dataDir, env: modelEnv() });
  const again = await MinimalClient.connect(server.url, ids);
  const calls = fake().requests.length;
  again.send({ type: "submit", prompt: "/cost" });
  await again.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 30_000, "/cost to answer");
  const report = String(again.state!.messages[3]!.content);
  assert.match(report, /Total cost:\s+\$0\.0045/);
  assert.match(report, /Model calls:\s+1\b/);
  assert.match(report, /1\.0k input, 100 output/);
  assert.equal(fake().requests.length, calls, "the report needs no model call");
  await again.close();
  await server.stop();
});
