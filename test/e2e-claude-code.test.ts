// End to end with Claude Code as the agent: `harness serve` with HARNESS_BACKEND=claude-code, its
// real runner processes, the real Claude Code binary, the model faked at the wire, driven by a
// minimal WebSocket client.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findClaudeCodeExecutable } from "@harness/runner";
import { claudeCodeRoute, MinimalClient, startFakeAnthropic, startHarnessServer, type FakeAnthropic, type HarnessProcess, type MinimalState } from "@harness/test-utils";

const NO_BINARY = findClaudeCodeExecutable() ? false : "the Claude Code binary (@anthropic-ai/claude-agent-sdk-<platform>) is not installed";
const skip = NO_BINARY;
const timeout = 120_000;

let fake: FakeAnthropic;
let server: HarnessProcess;
let dataDir: string;

before(async () => {
  if (skip) return;
  dataDir = await mkdtemp(join(tmpdir(), "harness-e2e-cc-"));
  fake = await startFakeAnthropic({ route: claudeCodeRoute });
  server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_BACKEND: "claude-code", HARNESS_RETRY_BASE_MS: "10" },
  });
});

after(async () => {
  await server?.stop();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const workspace = (sessionId: string) => join(dataDir, "workspaces", "alice", sessionId);
const idle = (s: MinimalState) => s.status === "idle" && s.messages.length > 0 && s.messages.at(-1)!.status !== "running";

async function connect(sessionId: string): Promise<MinimalClient> {
  const client = await MinimalClient.connect(server.url, { userId: "alice", sessionId });
  await client.waitForState(() => true, 10_000, "the first snapshot");
  return client;
}

/** Every request since `from` came from Claude Code (its beta flag), not the builtin loop. */
function assertClaudeCode(from: number): void {
  const requests = fake.requests.slice(from);
  assert.ok(requests.length > 0);
  for (const r of requests) assert.match(String(r.headers["anthropic-beta"]), /claude-code-/);
}

test("a scripted run with a Bash call: text, the tool call and its output, Claude Code's session id", { skip, timeout }, async () => {
  const from = fake.requests.length;
  fake.push(
    { text: "Let me run that.", toolUses: [{ name: "Bash", input: { command: "echo hello-from-claude-code > out.txt && cat out.txt", description: "say hello" } }] },
    { text: ["The command ", "printed hello-from-claude-code."] },
  );
  const client = await connect("cc-bash");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "run echo" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");

  assert.deepEqual(client.errors, []);
  const assistant = client.state!.messages[1];
  assert.equal(assistant.status, "complete");
  assert.match(assistant.content, /^Let me run that\./);
  assert.match(assistant.content, /The command printed hello-from-claude-code\.$/);
  assert.equal(assistant.toolCalls?.length, 1);
  const call = assistant.toolCalls![0];
  assert.equal(call.name, "Bash");
  assert.equal(call.status, "complete");
  assert.match(call.output ?? "", /hello-from-claude-code/);
  assert.equal(await readFile(join(workspace("cc-bash"), "out.txt"), "utf8"), "hello-from-claude-code\n");
  // Known from the checkpoint taken before the run (the files a Claude Code run made, whatever made them).
  assert.deepEqual((assistant as { changedFiles?: unknown }).changedFiles, { paths: ["out.txt"] });
  assert.match(String(client.state!.sessionId ?? ""), /^[0-9a-f-]{36}$/);
  assertClaudeCode(from);
  await client.close();
});

test("a run with a sub-agent: the figures move with each call, a sub-agent's last call counts its real output as it finishes, and the run's end only corrects the estimate", { skip, timeout }, async () => {
  fake.push(
    { toolUses: [{ id: "toolu_agent", name: "Agent", input: { description: "sub", prompt: "do the sub work", subagent_type: "general-purpose", run_in_background: false } }], usage: { input_tokens: 100, output_tokens: 11 } },
    { text: "sub says", toolUses: [{ name: "Bash", input: { command: "echo from-sub", description: "echo" } }], usage: { input_tokens: 200, output_tokens: 22 } },
    { text: "sub done", usage: { input_tokens: 300, output_tokens: 33 } },
    { text: "The agent is done.", usage: { input_tokens: 400, output_tokens: 4 } },
  );
  const client = await connect("cc-usage");
  type Figures = { status: string; inputTokens?: number; outputTokens?: number; costUsd?: number };
  const seen: Figures[] = [];
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "delegate" });
  await client.waitFor((c) => {
    const usage = c.state?.usage as { inputTokens?: number; outputTokens?: number; costUsd?: number } | undefined;
    if (c.state && usage) seen.push({ status: c.state.status, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: usage.costUsd });
    return c.state !== undefined && idle(c.state) && c.state.messages.length === 2;
  }, 60_000, "the run to end");
  assert.deepEqual(client.errors, []);
  const final = seen.at(-1)!;
  assert.deepEqual([final.inputTokens, final.outputTokens], [1000, 70], "every call once, with Claude Code's own counts");
  const live = seen.filter((f) => f.status !== "idle");
  // After the sub-agent's last call is told in full (11 + 1 + 33): its first call still has the
  // output count it began with (1) until the run's end corrects it.
  assert.ok(live.some((f) => f.outputTokens === 45 && f.inputTokens === 600), JSON.stringify(live));
  assert.ok(live.every((f) => (f.inputTokens ?? 0) <= 1000), "no input counted twice on the way");

  // The next run's calls are priced as Claude Code priced the first run's (its own price of the
  // model, which the harness's list need not match): the run's end leaves the cost where it was.
  fake.push({ text: "Still here.", usage: { input_tokens: 2000, output_tokens: 20 } });
  const before = final.costUsd ?? 0;
  const next: Figures[] = [];
  client.send({ type: "submit", prompt: "still there?" });
  await client.waitFor((c) => {
    const usage = c.state?.usage as { inputTokens?: number; costUsd?: number } | undefined;
    if (c.state && usage) next.push({ status: c.state.status, inputTokens: usage.inputTokens, costUsd: usage.costUsd });
    return c.state !== undefined && idle(c.state) && c.state.messages.length === 4;
  }, 60_000, "the next run to end");
  const called = next.find((f) => f.status !== "idle" && f.inputTokens === 3000);
  assert.ok(called, `the call counted before the run ended: ${JSON.stringify(next)}`);
  const ended = next.at(-1)!;
  assert.equal(ended.inputTokens, 3000);
  assert.ok((ended.costUsd ?? 0) > before);
  assert.ok(Math.abs((ended.costUsd ?? 0) - (called.costUsd ?? 0)) < 1e-9, `no step at the end: ${called.costUsd} while running, ${ended.costUsd} at the end`);
  await client.close();
});

test("a claude-code conversation's spent counts each run once: its calls, tokens and cost, the time it waited for the model and the time it took", { skip, timeout }, async () => {
  type Spent = { usage: { inputTokens: number; outputTokens: number; costUsd?: number }; calls: number; apiMs: number; wallMs: number };
  const figures = () => {
    const state = client.state as MinimalState & { spent?: Spent; usage?: { costUsd?: number } };
    return { spent: state.spent, cost: state.usage?.costUsd };
  };
  // One slow call (about 1.5 s of streaming), then a run of two quick calls around a command that
  // takes 2 s, steered while it runs: Claude Code's running totals of its session go on across the
  // resume, and the second run's part of them is what it adds.
  fake.push({ text: "Slow answer.", usage: { input_tokens: 100, output_tokens: 10 }, delayMs: 150 });
  const client = await connect("cc-spent");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "answer slowly" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the first run");
  const first = figures();
  assert.ok(first.spent, "the run's end says what the conversation spent");
  assert.deepEqual([first.spent.calls, first.spent.usage.inputTokens, first.spent.usage.outputTokens], [1, 100, 10]);
  assert.ok((first.spent.usage.costUsd ?? 0) > 0 && Math.abs(first.spent.usage.costUsd! - first.cost!) < 1e-9, `the cost Claude Code gives: ${JSON.stringify(first)}`);
  assert.ok(first.spent.apiMs >= 1000, `the time waited for the slow call: ${first.spent.apiMs} ms`);
  assert.ok(first.spent.wallMs >= first.spent.apiMs, `the run took at least that: ${first.spent.wallMs} ms`);

  fake.push(
    { text: "Working.", toolUses: [{ name: "Bash", input: { command: "python3 -c 'import time; time.sleep(2)'; echo slow-done", description: "slow" } }], usage: { input_tokens: 200, output_tokens: 20 } },
    { text: "Noted.", usage: { input_tokens: 300, output_tokens: 30 } },
  );
  client.send({ type: "submit", prompt: "work" });
  await client.waitForState((s) => s.messages[3]?.toolCalls?.[0]?.status === "running", 60_000, "the command to start");
  client.send({ type: "steer", message: "also say hi" });
  await client.waitForState((s) => idle(s) && s.messages.length === 6, 60_000, "the second run");
  assert.deepEqual(client.errors, []);
  const second = figures();
  assert.ok(second.spent);
  assert.deepEqual([second.spent.calls, second.spent.usage.inputTokens, second.spent.usage.outputTokens], [3, 600, 60], "each call once");
  assert.ok(Math.abs(second.spent.usage.costUsd! - second.cost!) < 1e-9, `the cost Claude Code gives: ${JSON.stringify(second)}`);
  const apiMs = second.spent.apiMs - first.spent.apiMs;
  assert.ok(apiMs > 0 && apiMs < first.spent.apiMs, `the second run adds the time of its own quick calls, not the first run's again: ${first.spent.apiMs} then ${second.spent.apiMs} ms`);
  assert.ok(second.spent.wallMs - first.spent.wallMs >= 2000, `the second run's time, its command's included: ${first.spent.wallMs} then ${second.spent.wallMs} ms`);

  // /cost reports the conversation's totals, as under the builtin backend, without a model call.
  const requests = fake.requests.length;
  client.send({ type: "submit", prompt: "/cost" });
  await client.waitForState((s) => idle(s) && s.messages.length === 8, 60_000, "/cost to answer");
  const report = client.state!.messages[7].content;
  assert.equal(fake.requests.length, requests, "no model call");
  assert.match(report, new RegExp(`Total cost:\\s+\\$${second.spent.usage.costUsd!.toFixed(4).replace(".", "\\.")}\\n`), report);
  assert.match(report, /Model calls:\s+3\n/, report);
  assert.match(report, /Usage:\s+600 input, 60 output/, report);
  assert.match(report, new RegExp(`Total duration \\(API\\):\\s+${(second.spent.apiMs / 1000).toFixed(1)}s`), report);
  assert.deepEqual((client.state as MinimalState & { spent?: Spent }).spent, second.spent, "the report spends nothing");
  await client.close();
});

test("an approval and a denial: the approved command runs, the denied one never does", { skip, timeout }, async () => {
  fake.push(
    { toolUses: [{ name: "Bash", input: { command: "echo yes > approved.txt", description: "approved" } }] },
    { toolUses: [{ name: "Bash", input: { command: "echo no > denied.txt", description: "denied" } }] },
    { text: "One ran, one was refused." },
  );
  const client = await connect("cc-approvals");
  client.send({ type: "submit", prompt: "write two files" });
  const pending = () => (client.state!.pendingApprovals ?? []) as { toolCallId: string }[];

  await client.waitForState((s) => s.status === "awaiting-approval" && pending().length === 1, 60_000, "the first approval request");
  const first = pending()[0].toolCallId;
  client.send({ type: "approve", toolCallId: first });
  await client.waitForState((s) => s.status === "awaiting-approval" && pending().some((p) => p.toolCallId !== first), 60_000, "the second request");
  const second = pending().find((p) => p.toolCallId !== first)!.toolCallId;
  client.send({ type: "deny", toolCallId: second, reason: "not that one" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");

  assert.deepEqual(client.errors, []);
  const calls = client.state!.messages[1].toolCalls!;
  assert.equal(calls.find((c) => c.id === first)?.status, "complete");
  const refused = calls.find((c) => c.id === second)!;
  assert.equal(refused.status, "denied");
  assert.match(refused.output ?? "", /not that one/);
  assert.equal(await readFile(join(workspace("cc-approvals"), "approved.txt"), "utf8"), "yes\n");
  assert.equal(existsSync(join(workspace("cc-approvals"), "denied.txt")), false);
  assert.match(JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1)), /not that one/);
  await client.close();
});

test("cancel stops Claude Code mid-stream and the session is ready for the next prompt", { skip, timeout }, async () => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  fake.push({ text: ["partial ", "answer"], hold }, { text: "after the cancel" });
  const client = await connect("cc-cancel");
  try {
    client.send({ type: "submit", prompt: "talk for a long time" });
    await client.waitForState((s) => (s.messages[1]?.content ?? "").includes("answer"), 60_000, "the first deltas");
    client.send({ type: "cancel" });
    await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "cancelled", 30_000, "the cancel");
  } finally {
    release();
  }
  // The cancelled run's Claude Code session is known once its process has stopped.
  await client.waitForState((s) => typeof s.sessionId === "string", 30_000, "the cancelled run's session id");
  assert.ok(((client.state!.usage as { inputTokens?: number } | undefined)?.inputTokens ?? 0) > 0, "what the cancelled run used counts");
  const from = fake.requests.length;
  client.send({ type: "submit", prompt: "still there?" });
  await client.waitForState((s) => idle(s) && s.messages.length === 4, 60_000, "the next run");
  assert.equal(client.state!.messages[3].content, "after the cancel");
  assert.deepEqual(client.errors, []);
  assert.match(JSON.stringify(fake.requests[from].body.messages), /talk for a long time/, "the next prompt continues the cancelled conversation");
  assert.equal(client.state!.notices, undefined, "and says nothing of lost history");
  await client.close();
});

test("a reply whose stream breaks off is asked again: the session shows the answer once, without the broken-off text", { skip, timeout }, async () => {
  fake.push({ text: "Let me look.", toolUses: [{ name: "Bash", input: { command: "echo looked", description: "look" } }] }, { kind: "stream-error", afterText: "The answer is " }, { text: "The answer is 42." });
  const client = await connect("cc-stream-error");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "what is the answer?" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");
  assert.deepEqual(client.errors, []);
  const reply = client.state!.messages[1];
  assert.equal(reply.status, "complete");
  assert.equal(reply.content, "Let me look.\n\nThe answer is 42.");
  await client.close();
});

test("Claude Code's thinking reaches the session as the reply's thinking, apart from its text", { skip, timeout }, async () => {
  fake.push({ thinking: ["Look first, ", "then answer."], text: "Looked.", toolUses: [{ name: "Bash", input: { command: "echo looked", description: "look" } }] }, { thinking: "It printed looked.", text: "It says looked." });
  const client = await connect("cc-thinking");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "look" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");
  assert.deepEqual(client.errors, []);
  const reply = client.state!.messages[1] as MinimalState["messages"][number] & { thinking?: string };
  assert.equal(reply.thinking, "Look first, then answer.\n\nIt printed looked.");
  assert.equal(reply.content, "Looked.\n\nIt says looked.");
  await client.close();
});

test("a steer sent while a command runs: the command's result stays with it, and the steer follows it", { skip, timeout }, async () => {
  fake.push(
    { text: "Working.", toolUses: [{ name: "Bash", input: { command: "python3 -c 'import time; time.sleep(2)'; echo slow-done", description: "slow" } }] },
    { text: "Noted the extra instruction." },
  );
  const client = await connect("cc-steer");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "work" });
  await client.waitForState((s) => s.messages[1]?.toolCalls?.[0]?.status === "running", 60_000, "the command to start");
  client.send({ type: "steer", message: "also say hi" });
  await client.waitForState((s) => idle(s) && s.messages.length === 4, 60_000, "the run to end");
  assert.deepEqual(client.errors, []);
  const [, working, steer, answer] = client.state!.messages;
  assert.equal(working.toolCalls![0].status, "complete");
  assert.match(working.toolCalls![0].output ?? "", /slow-done/);
  assert.deepEqual([steer.role, steer.content], ["user", "also say hi"]);
  assert.equal(answer.content, "Noted the extra instruction.");
  await client.close();
});

test("cancel and a new prompt at once: the new prompt continues the cancelled conversation", { skip, timeout }, async () => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  fake.push({ text: ["partial ", "answer"], hold }, { text: "after the cancel" });
  const client = await connect("cc-cancel-submit");
  try {
    client.send({ type: "submit", prompt: "remember kiwi" });
    await client.waitForState((s) => (s.messages[1]?.content ?? "").includes("answer"), 60_000, "the first deltas");
    const from = fake.requests.length;
    client.send({ type: "cancel" }, { type: "submit", prompt: "still there?" });
    await client.waitForState((s) => idle(s) && s.messages.length === 4, 60_000, "the next run");
    assert.deepEqual(client.errors, []);
    assert.equal(client.state!.messages[3].content, "after the cancel");
    assert.match(JSON.stringify(fake.requests[from].body.messages), /remember kiwi/);
    assert.equal(client.state!.notices, undefined, "no history was lost");
  } finally {
    release();
  }
  await client.close();
});

test("the next prompt resumes the Claude Code session: the model sees the earlier turns", { skip, timeout }, async () => {
  fake.push({ text: "The code word is heron." }, { text: "You said heron." });
  const client = await connect("cc-resume");
  client.send({ type: "submit", prompt: "remember heron" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the first run");
  const sessionId = client.state!.sessionId;
  const from = fake.requests.length;
  client.send({ type: "submit", prompt: "what was the word?" });
  await client.waitForState((s) => idle(s) && s.messages.length === 4, 60_000, "the second run");

  assert.equal(client.state!.messages[3].content, "You said heron.");
  assert.equal(client.state!.sessionId, sessionId, "the same Claude Code session");
  const sent = JSON.stringify(fake.requests[from].body.messages);
  assert.match(sent, /remember heron/);
  assert.match(sent, /The code word is heron\./);
  assertClaudeCode(from);
  await client.close();
});

test("with the sandbox on in its settings, Claude Code's commands do not see the server's data directory but for their workspace", { skip, timeout }, async () => {
  const ws = workspace("cc-sandbox");
  const other = workspace("cc-private");
  await mkdir(join(ws, ".claude"), { recursive: true });
  await mkdir(other, { recursive: true });
  await writeFile(join(other, "secret.txt"), "the-secret-text");
  await writeFile(join(ws, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }));
  fake.push(
    { toolUses: [{ name: "Bash", input: { command: `cat ${join(other, "secret.txt")}; ls ${dataDir}; echo mine > mine.txt && cat mine.txt`, description: "look around" } }] },
    { text: "Looked." },
  );
  const client = await connect("cc-sandbox");
  client.send({ type: "submit", prompt: "look around" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");
  const call = client.state!.messages[1].toolCalls![0];
  assert.doesNotMatch(call.output ?? "", /the-secret-text/);
  assert.match(call.output ?? "", /secret\.txt: No such file or directory/);
  assert.match(call.output ?? "", /^workspaces$/m);
  assert.match(call.output ?? "", /^mine$/m);
  await client.close();
});

test("Claude Code's file tools reach no other user's workspace, whatever the mode, rules or hooks setting", { skip, timeout }, async () => {
  const other = join(dataDir, "workspaces", "bob", "private");
  await mkdir(other, { recursive: true });
  await writeFile(join(other, "secret.txt"), "bob's secret");
  const mine = join(dataDir, "workspaces", "mallory", "cc-files");
  await mkdir(join(mine, ".claude"), { recursive: true });
  // The workspace's own settings are the session user's to write: they open nothing of the rest.
  await writeFile(join(mine, ".claude", "settings.json"), JSON.stringify({ disableAllHooks: true, permissions: { allow: ["Read", "Write", "Read(//**)"] } }));
  await writeFile(join(mine, "notes.md"), "mallory's notes");
  fake.push(
    {
      toolUses: [
        { name: "Read", input: { file_path: join(other, "secret.txt") } },
        { name: "Write", input: { file_path: join(other, "planted.txt"), content: "x" } },
        { name: "Read", input: { file_path: join(mine, "notes.md") } },
      ],
    },
    { text: "Done." },
  );
  const client = await MinimalClient.connect(server.url, { userId: "mallory", sessionId: "cc-files" });
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "look around" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");
  assert.deepEqual(client.errors, []);
  const calls = client.state!.messages[1].toolCalls!;
  assert.deepEqual(calls.map((c) => c.status), ["error", "error", "complete"]);
  for (const call of calls.slice(0, 2)) {
    assert.match(call.output ?? "", /denied: .*server's data directory/);
    assert.doesNotMatch(call.output ?? "", /bob's secret/);
  }
  assert.match(calls[2].output ?? "", /mallory's notes/);
  assert.equal(existsSync(join(other, "planted.txt")), false);
  assert.equal(await readFile(join(other, "secret.txt"), "utf8"), "bob's secret");
  await client.close();
});

test("a workspace's settings cannot send the server's key elsewhere: its env's ANTHROPIC_BASE_URL and proxies are not followed", { skip, timeout }, async (t) => {
  const elsewhere = await startFakeAnthropic({ route: claudeCodeRoute, replies: [{ text: "taken" }] });
  t.after(() => elsewhere.close());
  const ws = workspace("cc-endpoint");
  await mkdir(join(ws, ".claude"), { recursive: true });
  await writeFile(join(ws, ".claude", "settings.json"), JSON.stringify({ env: { ANTHROPIC_BASE_URL: elsewhere.url, HTTP_PROXY: elsewhere.url } }));
  const from = fake.requests.length;
  fake.push({ text: "Answered here." });
  const client = await connect("cc-endpoint");
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => idle(s) && s.messages.length === 2, 60_000, "the run to end");
  assert.equal(client.state!.messages[1].content, "Answered here.");
  assert.equal(elsewhere.requests.length + elsewhere.sideRequests.length, 0);
  assert.equal(fake.requests[from].headers["x-api-key"], "test-key");
  await client.close();
});
