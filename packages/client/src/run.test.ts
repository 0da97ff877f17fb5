import { test } from "node:test";
import assert from "node:assert/strict";
import { HarnessClient } from "./client.ts";
import { connectedClient, fakeServer, tick } from "./test-helpers.ts";
import { RunRefusedError } from "./run.ts";
import type { HarnessMessage, HarnessState } from "@harness/protocol";

const pending = (p: Promise<unknown>) => Promise.race([p.then(() => "resolved", () => "rejected"), tick(50).then(() => "pending")]);
const done: HarnessMessage[] = [
  { id: "u0", role: "user", content: "hello", status: "complete" },
  { id: "a0", role: "assistant", content: "hi", status: "complete" },
];


test("run() resolves once the run the prompt started has ended, with its reply, not at once from the idle state before it", async () => {
  // The same prompt again: the earlier exchange must not be taken for this run's.
  const { socket, client } = await connectedClient({ status: "idle", messages: done });
  const run = client.run("hello");
  assert.deepEqual(JSON.parse(socket.sent[0]), { type: "commands", commands: [{ type: "submit", prompt: "hello" }] });
  assert.equal(await pending(run), "pending", "the session was idle before the prompt arrived");
  socket.serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "2"], value: { id: "u1", role: "user", content: "hello", status: "complete" } },
    { type: "set", path: ["messages", "3"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
    { type: "set", path: ["status"], value: "running" },
  ] });
  socket.serve({ type: "delta", seq: 3, operations: [{ type: "append-text", path: ["messages", "3", "content"], value: "hello again" }] });
  assert.equal(await pending(run), "pending", "the run is under way");
  socket.serve({ type: "delta", seq: 4, operations: [
    { type: "set", path: ["messages", "3", "status"], value: "complete" },
    { type: "set", path: ["status"], value: "idle" },
  ] });
  const result = await run;
  assert.equal(result.status, "complete");
  assert.equal(result.prompt.id, "u1");
  assert.equal(result.reply.id, "a1");
  assert.equal(result.reply.content, "hello again");
  assert.equal(result.state.messages.length, 4);
  client.close();
});

test("run() resolves with a failed or cancelled run's status and the session's error, as a value", async () => {
  const { socket, client } = await connectedClient({ status: "idle", messages: [] });
  const run = client.run("go");
  socket.serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "0"], value: { id: "u", role: "user", content: "go", status: "complete" } },
    { type: "set", path: ["messages", "1"], value: { id: "a", role: "assistant", content: "", status: "running" } },
    { type: "set", path: ["status"], value: "running" },
  ] });
  socket.serve({ type: "delta", seq: 3, operations: [
    { type: "set", path: ["messages", "1", "status"], value: "error" },
    { type: "set", path: ["status"], value: "error" },
    { type: "set", path: ["error"], value: "Anthropic API error 401" },
  ] });
  const result = await run;
  assert.equal(result.status, "error");
  assert.equal(result.state.error, "Anthropic API error 401");
  client.close();
});

test("run() fails with the server's words when the prompt is refused, but not on another command's error", async () => {
  const { socket, client } = await connectedClient({ status: "running", messages: [] });
  const busy = client.run("too soon");
  socket.serve({ type: "error", message: "configure: config.maxTurns: Too small", code: "bad_command", command: 0 });
  socket.serve({ type: "error", message: "rewind: a run is in progress; cancel it or wait for it to finish", code: "busy", command: 0 });
  assert.equal(await pending(busy), "pending", "another command's error is not the prompt's");
  socket.serve({ type: "error", message: "a run is already in progress; cancel it or wait for it to finish", code: "busy", command: 0 });
  await assert.rejects(busy, (error: Error & { code?: string }) => {
    assert.ok(error instanceof RunRefusedError);
    assert.equal(error.message, "run: a run is already in progress; cancel it or wait for it to finish");
    assert.equal(error.code, "busy");
    return true;
  });
  const empty = client.run("  ");
  socket.serve({ type: "error", message: "submit: prompt: must not be empty or only whitespace", code: "bad_command", command: 0 });
  await assert.rejects(empty, /^RunRefusedError: run: submit: prompt: must not be empty or only whitespace$/);
  client.close();
});

test("run() fails after its timeout, when the client closes, and at once on a closed client", async () => {
  const { client } = await connectedClient({ status: "idle", messages: [] });
  await assert.rejects(client.run("slow", { timeoutMs: 20 }), /^Error: run: no end of the run after 20 ms \(it goes on in the session: cancel\(\) stops it\)$/);
  const closing = client.run("never");
  client.close();
  await assert.rejects(closing, /^Error: run: the client closed: close\(\) was called$/);
  await assert.rejects(client.run("closed"), /^Error: the client is closed: call connect\(\) before sending commands$/);
});

test("run()'s onApproval is asked once for each call of the run that waits for approval, and its answer is sent", async () => {
  const { socket, client } = await connectedClient({ status: "idle", messages: [] });
  const asked: string[] = [];
  const run = client.run("edit", {
    onApproval: async (request, state) => {
      asked.push(`${request.toolName} ${request.description} ${JSON.stringify(request.input)} ${state.status}`);
      return request.toolName === "Bash" ? { behavior: "deny", reason: "no shell" } : { behavior: "allow" };
    },
  });
  const call = (id: string, name: string) => ({ id, name, status: "awaiting-approval", input: { x: id } });
  socket.serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "0"], value: { id: "u", role: "user", content: "edit", status: "complete" } },
    { type: "set", path: ["messages", "1"], value: { id: "a", role: "assistant", content: "", status: "running", toolCalls: [call("t1", "Write"), call("t2", "Bash")] } },
    { type: "set", path: ["status"], value: "awaiting-approval" },
    { type: "set", path: ["pendingApprovals"], value: [{ toolCallId: "t1", toolName: "Write", description: "a.txt" }, { toolCallId: "t2", toolName: "Bash", description: "rm -rf x" }] },
  ] });
  socket.serve({ type: "delta", seq: 3, operations: [{ type: "set", path: ["runStartedAt"], value: 1 }] });
  await tick();
  assert.deepEqual(asked, [`Write a.txt {"x":"t1"} awaiting-approval`, `Bash rm -rf x {"x":"t2"} awaiting-approval`]);
  assert.deepEqual(socket.sent.slice(1).map((f) => JSON.parse(f).commands[0]), [
    { type: "approve", toolCallId: "t1" },
    { type: "deny", toolCallId: "t2", reason: "no shell" },
  ]);
  socket.serve({ type: "delta", seq: 4, operations: [
    { type: "set", path: ["pendingApprovals"], value: [] },
    { type: "set", path: ["messages", "1", "status"], value: "complete" },
    { type: "set", path: ["status"], value: "idle" },
  ] });
  assert.equal((await run).status, "complete");
  client.close();
});

test("run()'s onApproval leaves alone the calls of a run that is not its own, and a callback that fails denies the call, saying why", async () => {
  const others = { id: "o", role: "assistant" as const, content: "", status: "running" as const, toolCalls: [{ id: "t0", name: "Write", status: "awaiting-approval" as const }] };
  const { socket, client } = await connectedClient({
    status: "awaiting-approval",
    messages: [{ id: "ou", role: "user", content: "theirs", status: "complete" }, others],
    pendingApprovals: [{ toolCallId: "t0", toolName: "Write", description: "theirs.txt" }],
  });
  const asked: string[] = [];
  const run = client.run("mine", {
    onApproval: (request) => {
      asked.push(request.toolCallId);
      throw new Error("cannot decide");
    },
  });
  socket.serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["runStartedAt"], value: 1 }] });
  assert.deepEqual(asked, []);
  socket.serve({ type: "delta", seq: 3, operations: [
    { type: "set", path: ["messages", "1", "status"], value: "complete" },
    { type: "set", path: ["pendingApprovals"], value: [] },
    { type: "set", path: ["messages", "2"], value: { id: "u", role: "user", content: "mine", status: "complete" } },
    { type: "set", path: ["messages", "3"], value: { id: "a", role: "assistant", content: "", status: "running", toolCalls: [{ id: "t1", name: "Edit", status: "awaiting-approval" }] } },
    { type: "set", path: ["status"], value: "awaiting-approval" },
    { type: "set", path: ["pendingApprovals"], value: [{ toolCallId: "t1", toolName: "Edit", description: "b.txt" }] },
  ] });
  await tick();
  assert.deepEqual(asked, ["t1"]);
  assert.deepEqual(JSON.parse(socket.sent.at(-1)!).commands[0], { type: "deny", toolCallId: "t1", reason: "the program's onApproval failed: cannot decide" });
  client.close();
  await run.catch(() => {});
});

test("switching session fails a run() under way and answers a configure() under way with ok: false", async () => {
  const { client } = await connectedClient({ status: "idle", messages: [] });
  const run = client.run("here");
  const configure = client.configure({ maxTurns: 2 });
  client.switchSession("other").catch(() => {});
  await assert.rejects(run, /^Error: run: the client switched to session other$/);
  assert.deepEqual(await configure, { ok: false, error: "the client switched to session other" });
  client.close();
});

test("run()'s onText is given the reply's text as it streams, each part once, across a snapshot that brings some of it", async () => {
  const { socket, client } = await connectedClient({ status: "idle", messages: done });
  const parts: string[] = [];
  const run = client.run("stream", { onText: (text, reply) => parts.push(`${reply.id}:${text}`) });
  socket.serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "2"], value: { id: "u1", role: "user", content: "stream", status: "complete" } },
    { type: "set", path: ["messages", "3"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
    { type: "set", path: ["status"], value: "running" },
  ] });
  socket.serve({ type: "delta", seq: 3, operations: [{ type: "append-text", path: ["messages", "3", "content"], value: "one " }] });
  socket.serve({ type: "delta", seq: 4, operations: [{ type: "set", path: ["messages", "3", "toolCalls"], value: [{ id: "t", name: "Bash", status: "running" }] }] });
  socket.serve({ type: "state", seq: 6, state: {
    status: "running",
    messages: [...done, { id: "u1", role: "user", content: "stream", status: "complete" }, { id: "a1", role: "assistant", content: "one two ", status: "running" }],
  } });
  socket.serve({ type: "delta", seq: 7, operations: [
    { type: "append-text", path: ["messages", "3", "content"], value: "three" },
    { type: "set", path: ["messages", "3", "status"], value: "complete" },
    { type: "set", path: ["status"], value: "idle" },
  ] });
  await run;
  assert.deepEqual(parts, ["a1:one ", "a1:two ", "a1:three"], "the earlier exchange's text is not the run's");
  client.close();
});

test("run() fails, saying so, when a reconnect's snapshot no longer has its run (a server killed before it stored the prompt)", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://h", userId: "u", sessionId: "s", webSocket: server.factory, reconnect: { minDelayMs: 1 } });
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state: { status: "idle", messages: done }, seq: 1 });
  await connecting;
  const run = client.run("lost");
  server.sockets[0].serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "2"], value: { id: "u1", role: "user", content: "lost", status: "complete" } },
    { type: "set", path: ["messages", "3"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
    { type: "set", path: ["status"], value: "running" },
  ] });
  server.sockets[0].drop();
  await tick(20);
  // The server that comes back never heard of the run: its snapshot is the session before it.
  server.sockets[1].serve({ type: "state", state: { status: "idle", messages: done }, seq: 1 });
  assert.equal(await pending(run), "rejected", "the run is gone: nothing will end it");
  await assert.rejects(run, { message: "run: the session no longer has this run's prompt: the server lost it (it stopped before storing it) or the conversation was cleared" });
  client.close();
});

test("waitForRun() follows a prompt sent with submit(); with untilApproval it resolves once the run waits for approval", async () => {
  const { socket, client } = await connectedClient({ status: "idle", messages: [] });
  client.submit("go");
  const run = client.waitForRun("go", { untilApproval: true });
  assert.equal(socket.sent.length, 1, "it sends nothing itself");
  socket.serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "0"], value: { id: "u", role: "user", content: "go", status: "complete" } },
    { type: "set", path: ["messages", "1"], value: { id: "a", role: "assistant", content: "", status: "running", toolCalls: [{ id: "c1", name: "Bash", input: {} }] } },
    { type: "set", path: ["status"], value: "running" },
  ] });
  assert.equal(await pending(run), "pending");
  socket.serve({ type: "delta", seq: 3, operations: [
    { type: "set", path: ["pendingApprovals"], value: [{ toolCallId: "c1", toolName: "Bash", description: "ls" }] },
    { type: "set", path: ["status"], value: "awaiting-approval" },
  ] });
  const result = await run;
  assert.equal(result.status, "awaiting-approval");
  assert.equal(result.reply.id, "a");
  client.close();
});

test("run()'s onThinking is given the reply's thinking as it streams, each part once, apart from its text", async () => {
  const { socket, client } = await connectedClient({ status: "idle", messages: done });
  const thinking: string[] = [];
  const text: string[] = [];
  const run = client.run("think", { onThinking: (part, reply) => thinking.push(`${reply.id}:${part}`), onText: (part) => text.push(part) });
  socket.serve({ type: "delta", seq: 2, operations: [
    { type: "set", path: ["messages", "2"], value: { id: "u1", role: "user", content: "think", status: "complete" } },
    { type: "set", path: ["messages", "3"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
    { type: "set", path: ["status"], value: "running" },
  ] });
  socket.serve({ type: "delta", seq: 3, operations: [{ type: "set", path: ["messages", "3", "thinking"], value: "Hmm, " }] });
  socket.serve({ type: "delta", seq: 4, operations: [{ type: "append-text", path: ["messages", "3", "thinking"], value: "yes." }] });
  socket.serve({ type: "delta", seq: 5, operations: [
    { type: "append-text", path: ["messages", "3", "content"], value: "Yes." },
    { type: "set", path: ["messages", "3", "status"], value: "complete" },
    { type: "set", path: ["status"], value: "idle" },
  ] });
  await run;
  assert.deepEqual(thinking, ["a1:Hmm, ", "a1:yes."]);
  assert.deepEqual(text, ["Yes."]);
  client.close();
});
