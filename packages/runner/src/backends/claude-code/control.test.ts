// Controlling a Claude Code run in flight: cancel, steer, approve / deny, configure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalRequest } from "../../backend.ts";
import { claudeCodeBackend } from "./claude-code.ts";
import { noApproverMessage } from "./permissions.ts";
import { drivenContext, fakeForClaudeCode, NO_CLAUDE_CODE, runnerEnvFor, tempDirs } from "./test-support.ts";

const skip = NO_CLAUDE_CODE;
const timeout = 60_000;

test("cancel mid-stream interrupts Claude Code: the run ends 'cancelled' with what was said so far", { skip, timeout }, async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const fake = await fakeForClaudeCode(t, { replies: [{ text: ["partial ", "answer"], hold }] });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "talk" }, run.ctx);
  await run.waitForEvent((e) => e.type === "assistant.delta" && e.text === "answer");
  const cancelledAt = performance.now();
  run.cancel();
  const result = await outcome;
  assert.equal(result.ok, false);
  assert.equal(result.ok ? "" : result.message, "cancelled");
  assert.match(result.sessionId ?? "", /^[0-9a-f-]{36}$/);
  assert.match(JSON.stringify(result.transcript), /partial answer/);
  assert.ok(performance.now() - cancelledAt < 10_000, "the run stops promptly");
  assert.equal(fake.requests.length, 1);
  assert.ok(!result.ok && result.reason === "cancelled");
  assert.ok((result.usage?.inputTokens ?? 0) > 0 && (result.usage?.costUsd ?? 0) > 0, "the interrupted call is paid for");
});

test("cancel while a tool runs: the run is 'cancelled' and says what its model calls used", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ text: "Waiting.", toolUses: [{ name: "Bash", input: { command: "python3 -c 'import time; time.sleep(30)'", description: "wait" } }], usage: { input_tokens: 900, output_tokens: 12 } }],
  });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "wait", permissionMode: "bypassPermissions" }, run.ctx);
  await run.waitForEvent((e) => e.type === "tool.started");
  await new Promise((resolve) => setTimeout(resolve, 500));
  run.cancel();
  const result = await outcome;
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.reason, "cancelled");
  assert.equal(result.usage?.inputTokens, 900);
  assert.equal(result.usage?.outputTokens, 12);
});

test("a steer message sent while a tool runs reaches the model in the same run", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      { toolUses: [{ id: "toolu_slow", name: "Bash", input: { command: "sleep 1; echo slow-done", description: "slow" } }] },
      { text: "Noted the extra instruction." },
    ],
  });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "work", permissionMode: "bypassPermissions" }, run.ctx);
  await run.waitForEvent((e) => e.type === "tool.started");
  run.steer("also mention penguins");
  const result = await outcome;
  assert.ok(result.ok, JSON.stringify(result));
  assert.deepEqual(
    run.events.filter((e) => e.type === "user.message"),
    [{ type: "user.message", text: "also mention penguins", steer: true }],
  );
  assert.equal(fake.requests.length, 2);
  assert.match(JSON.stringify(fake.requests[1].body.messages), /also mention penguins/);
  assert.match(JSON.stringify(result.transcript), /also mention penguins/);
});

test("a steer message sent during the final answer gets its own turn before the run ends", { skip, timeout }, async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const fake = await fakeForClaudeCode(t, { replies: [{ text: "First answer.", hold }, { text: "About the follow-up." }] });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "answer" }, run.ctx);
  await run.waitForEvent((e) => e.type === "assistant.delta");
  run.steer("and a follow-up");
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(run.events.filter((e) => e.type === "user.message").length, 0, "not taken while the answer streams");
  release();
  const result = await outcome;
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.result, "About the follow-up.");
  const order = run.events.map((e) => (e.type === "user.message" ? "steer" : e.type === "assistant.delta" ? e.text : "")).filter(Boolean);
  assert.deepEqual(order, ["First answer.", "steer", "About the follow-up."]);
  assert.equal(fake.requests.length, 2);
  assert.match(JSON.stringify(fake.requests[1].body.messages), /and a follow-up/);
});

test("an approved call runs; the approval request names the tool, the command and the call id", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ toolUses: [{ id: "toolu_ok", name: "Bash", input: { command: "echo yes > approved.txt", description: "write" } }] }, { text: "ok" }],
  });
  const dirs = tempDirs(t);
  const asked: ApprovalRequest[] = [];
  const run = drivenContext({
    ...dirs,
    requestApproval: async (request) => {
      asked.push(request);
      return { behavior: "allow" };
    },
  });
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "go", permissionMode: "default" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.deepEqual(asked, [
    { toolUseId: "toolu_ok", toolName: "Bash", description: "echo yes > approved.txt", input: { command: "echo yes > approved.txt", description: "write" } },
  ]);
  assert.ok(existsSync(join(dirs.workspace, "approved.txt")));
});

test("an approval asked for by a PreToolUse hook, or by an ask rule, carries why", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      { toolUses: [{ id: "toolu_hook", name: "Bash", input: { command: "echo hooked", description: "echo" } }] },
      { toolUses: [{ id: "toolu_rule", name: "Bash", input: { command: "touch ruled.txt", description: "touch" } }] },
      { text: "ok" },
    ],
  });
  const dirs = tempDirs(t);
  const said = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "echo goes to the build log" } });
  mkdirSync(join(dirs.workspace, ".claude"));
  writeFileSync(
    join(dirs.workspace, ".claude/settings.json"),
    JSON.stringify({
      permissions: { ask: ["Bash(touch:*)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `grep -q hooked && echo '${said}' || true` }] }] },
    }),
  );
  const asked: ApprovalRequest[] = [];
  const run = drivenContext({ ...dirs, requestApproval: async (request) => (asked.push(request), { behavior: "allow" }) });
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "go", permissionMode: "acceptEdits" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.deepEqual(asked.map((request) => [request.toolUseId, request.reason]), [
    ["toolu_hook", "echo goes to the build log"],
    ["toolu_rule", "an ask rule of the settings applies."],
  ]);
});

test("a denied call never runs; the model is told the user's reason", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ toolUses: [{ id: "toolu_no", name: "Bash", input: { command: "echo no > denied.txt" } }] }, { text: "understood" }],
  });
  const dirs = tempDirs(t);
  const run = drivenContext({ ...dirs, requestApproval: async () => ({ behavior: "deny", reason: "not today" }) });
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "go" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(existsSync(join(dirs.workspace, "denied.txt")), false);
  const done = run.events.find((e) => e.type === "tool.completed");
  assert.deepEqual(done, { type: "tool.completed", toolUseId: "toolu_no", output: "The user denied this tool call: not today", isError: true });
  assert.match(JSON.stringify(fake.requests[1].body.messages.at(-1)), /not today/);
});

test("with nobody to ask, a call Claude Code would ask about is denied with a message that says why", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ toolUses: [{ name: "Bash", input: { command: "echo x > headless.txt" } }] }, { text: "could not" }],
  });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "go" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(existsSync(join(dirs.workspace, "headless.txt")), false);
  const done = run.events.find((e) => e.type === "tool.completed");
  assert.ok(done?.type === "tool.completed" && done.isError);
  assert.equal(done.output, noApproverMessage("Bash"));
});

test("configure in flight: the new model and permission mode apply from the next call; maxTurns waits for the next run", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      { toolUses: [{ name: "Bash", input: { command: "echo one > one.txt" } }] },
      { toolUses: [{ name: "Bash", input: { command: "echo two > two.txt" } }] },
      { text: "both done" },
    ],
  });
  const dirs = tempDirs(t);
  const asked: string[] = [];
  const run = drivenContext({
    ...dirs,
    requestApproval: async (request) => {
      asked.push(request.description);
      run.configure({ model: "claude-sonnet-4-5", permissionMode: "bypassPermissions", maxTurns: 7 });
      // The notice comes once Claude Code has taken the changes it can take now.
      await run.waitForEvent((e) => e.type === "notice" && /maxTurns/.test(e.message));
      return { behavior: "allow" };
    },
  });
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "go", model: "claude-opus-4-5" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.deepEqual(asked, ["echo one > one.txt"], "the second call ran without asking");
  assert.ok(existsSync(join(dirs.workspace, "two.txt")));
  assert.deepEqual(
    fake.requests.map((r) => r.body.model),
    ["claude-opus-4-5", "claude-sonnet-4-5", "claude-sonnet-4-5"],
  );
  const notice = run.events.find((e) => e.type === "notice");
  assert.deepEqual(notice, { type: "notice", level: "info", message: "Claude Code takes maxTurns when it starts: the change applies from the next run." });
});
