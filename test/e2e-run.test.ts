// End to end through real processes and sockets: `harness serve` (which starts its own runner
// processes) driven by a minimal WebSocket client, with the model faked at the wire.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, startHarnessServer, MinimalClient, waitFor, type FakeAnthropic, type HarnessProcess } from "@harness/test-utils";

let fake: FakeAnthropic;
let server: HarnessProcess;
let dataDir: string;
let n = 0;
const session = () => ({ userId: "alice", sessionId: `s${++n}-${Date.now()}` });

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "harness-e2e-"));
  fake = await startFakeAnthropic();
  server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_RETRY_BASE_MS: "10" },
  });
});

after(async () => {
  await server?.stop();
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test("a prompt whose reply runs Bash ends idle with the text, the tool output, and the tool_result sent to the model", async () => {
  const before = fake.requests.length;
  fake.push(
    { toolUses: [{ name: "Bash", input: { command: "echo hello-from-bash", description: "say hello" } }], text: "Let me run that." },
    { text: ["The command ", "printed hello-from-bash."] },
  );
  const ids = session();
  const client = await MinimalClient.connect(server.url, ids);
  await client.waitForState(() => true, 10_000, "the first snapshot");
  assert.equal(client.state!.status, "idle");

  client.send({ type: "submit", prompt: "run echo" });
  await client.waitForState((s) => s.status === "idle" && s.messages.length === 2 && s.messages[1].status !== "running", 30_000, "the run to end");

  const [user, assistant] = client.state!.messages;
  assert.deepEqual([user.role, user.content, user.status], ["user", "run echo", "complete"]);
  assert.equal(assistant.role, "assistant");
  assert.equal(assistant.status, "complete");
  assert.match(assistant.content, /Let me run that\./);
  assert.match(assistant.content, /The command printed hello-from-bash\.$/);
  assert.equal(assistant.toolCalls?.length, 1);
  const call = assistant.toolCalls![0];
  assert.equal(call.name, "Bash");
  assert.equal(call.status, "complete");
  assert.deepEqual(call.input, { command: "echo hello-from-bash", description: "say hello" });
  assert.match(call.output ?? "", /hello-from-bash/);

  const requests = fake.requests.slice(before);
  assert.equal(requests.length, 2);
  assert.equal(requests[0].headers["x-api-key"], "test-key");
  const lastTurn = requests[1].body.messages.at(-1);
  assert.equal(lastTurn.role, "user");
  const result = lastTurn.content.find((b: { type: string }) => b.type === "tool_result");
  assert.equal(result.tool_use_id, call.id);
  assert.match(JSON.stringify(result.content), /hello-from-bash/);

  // The live state equals what a fresh connection is given.
  const again = await MinimalClient.connect(server.url, ids);
  await again.waitForState(() => true);
  assert.deepEqual(again.state, client.state);
  await again.close();
  await client.close();
});

test("a second submit continues the same conversation", async () => {
  const ids = session();
  fake.push({ text: "first answer" }, { text: "second answer" });
  const client = await MinimalClient.connect(server.url, ids);
  const before = fake.requests.length;
  client.send({ type: "submit", prompt: "one" });
  await client.waitForState((s) => s.messages[1]?.status === "complete");
  client.send({ type: "submit", prompt: "two" });
  await client.waitForState((s) => s.messages[3]?.status === "complete");
  assert.equal(client.state!.messages[3].content, "second answer");
  const sent = fake.requests[before + 1].body.messages;
  assert.deepEqual(sent.map((m: { role: string }) => m.role), ["user", "assistant", "user"]);
  assert.match(JSON.stringify(sent[0]), /one/);
  assert.match(JSON.stringify(sent[1]), /first answer/);
  await client.close();
});

test("cancel mid-stream ends idle with the message cancelled; what the run used still counts", async () => {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  fake.push({ text: ["partial ", "answer"], hold, usage: { input_tokens: 1234, output_tokens: 7 } });
  const client = await MinimalClient.connect(server.url, session());
  client.send({ type: "submit", prompt: "take your time" });
  await client.waitForState((s) => s.messages[1]?.content === "partial answer", 30_000, "the partial text");
  client.send({ type: "cancel" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1].status === "cancelled", 10_000, "cancelled");
  assert.equal(client.state!.messages[1].content, "partial answer");
  // The run's input tokens were counted as its reply began (message_start).
  await client.waitForState((s) => (s.usage as { inputTokens?: number } | undefined)?.inputTokens === 1234, 10_000, "the cancelled run's usage");
  assert.equal(client.errors.length, 0);
  release();
  await client.close();
});

test("a connection killed mid-run and reopened with since ends equal to a fresh snapshot", async () => {
  const ids = session();
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const words = Array.from({ length: 20 }, (_, i) => `w${i} `);
  fake.push({ text: words, hold });
  const client = await MinimalClient.connect(server.url, ids);
  client.send({ type: "submit", prompt: "stream" });
  await client.waitForState((s) => (s.messages[1]?.content ?? "").includes("w19"), 30_000, "the first half");
  const seenSeq = client.seq;
  client.kill();
  // The run goes on while nobody is connected, to its end.
  release();
  await waitFor(async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    return health.clients === 0 && health.runs === 0;
  }, "the run to end with no client connected");
  const back = await MinimalClient.connect(server.url, { ...ids, initial: { state: client.state!, seq: seenSeq } });
  await back.waitForState((s) => s.status === "idle" && s.messages[1].status === "complete", 30_000, "the run to end");
  const fresh = await MinimalClient.connect(server.url, ids);
  await fresh.waitForState(() => true);
  assert.deepEqual(back.state, fresh.state);
  assert.ok(back.frames.every((f) => f.type === "delta"), "a reconnect within the log gets deltas, not a snapshot");
  const seqs = back.frames.map((f) => (f as { seq: number }).seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "deltas arrive in order");
  assert.equal(new Set(seqs).size, seqs.length, "no delta twice");
  await Promise.all([back.close(), fresh.close()]);
});

test("bad frames get error frames; the connection and the state survive", async () => {
  const ids = session();
  fake.push({ text: "still works" });
  const client = await MinimalClient.connect(server.url, ids);
  await client.waitForState(() => true);
  const initial = structuredClone(client.state);
  client.sendRaw("this is not json");
  client.send({ type: "teleport" });
  client.send({ type: "submit" });
  client.sendRaw(JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt: "x".repeat(1_100_000) }] }));
  await client.waitForErrors(4);
  assert.deepEqual(client.errors.map((e) => e.code), ["bad_json", "unknown_command", "bad_command", "frame_too_large"]);
  assert.match(client.errors[0].message, /not valid JSON/);
  assert.match(client.errors[1].message, /teleport/);
  assert.equal(client.errors[1].command, 0);
  assert.match(client.errors[2].message, /prompt/);
  assert.equal(client.closed, false);
  assert.deepEqual(client.state, initial);
  client.send({ type: "submit", prompt: "after the bad frames" });
  await client.waitForState((s) => s.messages[1]?.status === "complete");
  assert.equal(client.state!.messages[1].content, "still works");
  await client.close();
});

test("a command naming something that does not exist answers an error frame naming it", async () => {
  const client = await MinimalClient.connect(server.url, session());
  await client.waitForState(() => true);
  const initial = structuredClone(client.state);
  client.send({ type: "approve", toolCallId: "toolu_nothing" }, { type: "cancel" });
  await client.waitForErrors(2);
  assert.match(client.errors[0].message, /toolu_nothing/);
  assert.equal(client.errors[0].command, 0);
  assert.equal(client.errors[1].command, 1);
  assert.deepEqual(client.state, initial);
  await client.close();
});

test("a run the model fails partway still counts what its calls cost", async () => {
  const failing = { kind: "http-error" as const, status: 529, message: "Overloaded" };
  fake.push(
    { toolUses: [{ name: "Bash", input: { command: "echo hi" } }], usage: { input_tokens: 20_000, output_tokens: 500 } },
    failing,
    failing,
    failing,
    failing,
    failing,
  );
  const client = await MinimalClient.connect(server.url, session());
  await client.waitForState(() => true);
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "go" });
  await client.waitForState((s) => s.status === "error", 30_000, "the run to fail");
  const usage = client.state!.usage as { inputTokens: number; outputTokens: number } | undefined;
  assert.equal(usage?.inputTokens, 20_000);
  assert.equal(usage?.outputTokens, 500);
  assert.match(String(client.state!.error), /529/);
  await client.close();
});
