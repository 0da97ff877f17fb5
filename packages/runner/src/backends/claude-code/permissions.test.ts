import { test } from "node:test";
import assert from "node:assert/strict";
import type { ApprovalRequest } from "../../backend.ts";
import { createToolGate, describeToolCall, noApproverMessage } from "./permissions.ts";
import type { HarnessPermissionMode } from "./options.ts";

const options = { signal: new AbortController().signal, toolUseID: "toolu_1", requestId: "r1" };

test("the gate asks the session and passes its decision back in Claude Code's terms", async () => {
  const asked: ApprovalRequest[] = [];
  let answer: { behavior: "allow"; updatedInput?: Record<string, unknown> } | { behavior: "deny"; reason?: string } = { behavior: "allow" };
  const gate = createToolGate({ mode: () => "default", requestApproval: async (r) => (asked.push(r), answer) });

  assert.deepEqual(await gate("Bash", { command: "ls -la" }, options), { behavior: "allow", updatedInput: { command: "ls -la" }, decisionClassification: "user_temporary" });
  assert.deepEqual(asked, [{ toolUseId: "toolu_1", toolName: "Bash", description: "ls -la", input: { command: "ls -la" } }]);
  answer = { behavior: "allow", updatedInput: { command: "ls" } };
  assert.deepEqual((await gate("Bash", { command: "ls -la" }, options)) as unknown, { behavior: "allow", updatedInput: { command: "ls" }, decisionClassification: "user_temporary" });
  answer = { behavior: "deny", reason: "too broad" };
  assert.deepEqual(await gate("Bash", { command: "rm -rf /" }, options), { behavior: "deny", message: "The user denied this tool call: too broad", decisionClassification: "user_reject" });
  answer = { behavior: "deny" };
  assert.equal(((await gate("Bash", { command: "x" }, options)) as { message: string }).message, "The user denied this tool call.");
});

test("without an approver every ask is denied with a clear message; bypassPermissions allows without asking", async () => {
  let mode: HarnessPermissionMode = "default";
  const gate = createToolGate({ mode: () => mode });
  assert.deepEqual(await gate("Write", { file_path: "/w/a" }, options), { behavior: "deny", message: noApproverMessage("Write") });
  mode = "bypassPermissions";
  assert.deepEqual(await gate("Write", { file_path: "/w/a" }, options), { behavior: "allow", updatedInput: { file_path: "/w/a" } });
});

test("descriptions name what the call does, on one line", () => {
  assert.equal(describeToolCall("Bash", { command: "echo a\necho b" }), "echo a ⏎ echo b");
  assert.equal(describeToolCall("Edit", { file_path: "/w/x.ts", old_string: "a" }), "/w/x.ts");
  assert.equal(describeToolCall("WebFetch", { url: "https://example.com" }), "https://example.com");
  assert.equal(describeToolCall("mcp__srv__tool", { a: 1 }, "Claude wants to use tool from srv"), "Claude wants to use tool from srv");
  assert.equal(describeToolCall("mcp__srv__tool", { a: 1 }), '{"a":1}');
  assert.equal(describeToolCall("Bash", { command: "x".repeat(5000) }).length, 1000);
});

test("a plan Claude Code presents: approved, it leaves plan mode for the session; rejected or unattended, the model reads why", async () => {
  let answer: { behavior: "allow" } | { behavior: "deny"; reason?: string } = { behavior: "allow" };
  let left = 0;
  const gate = createToolGate({ mode: () => "plan", requestApproval: async () => answer, onPlanApproved: () => left++ });
  const plan = { plan: "1. Do it." };
  assert.deepEqual(await gate("ExitPlanMode", plan, options), {
    behavior: "allow",
    updatedInput: plan,
    decisionClassification: "user_temporary",
    updatedPermissions: [{ type: "setMode", mode: "default", destination: "session" }],
  });
  assert.equal(left, 1);
  answer = { behavior: "deny", reason: "smaller steps" };
  const rejected = (await gate("ExitPlanMode", plan, options)) as { behavior: string; message: string };
  assert.equal(rejected.behavior, "deny");
  assert.match(rejected.message, /rejected the plan, so plan mode stays on\. Their feedback: smaller steps/);
  assert.equal(left, 1);
  const unattended = (await createToolGate({ mode: () => "plan" })("ExitPlanMode", plan, options)) as { message: string };
  assert.match(unattended.message, /No one can approve a plan in this run/);
});

test("a plan waiting is approved by switching to acceptEdits (or bypassPermissions), and the run goes on in that mode; another mode leaves it waiting", async () => {
  let mode: HarnessPermissionMode = "plan";
  const listeners = new Set<(mode: HarnessPermissionMode) => void>();
  const setMode = (next: HarnessPermissionMode) => ((mode = next), listeners.forEach((listener) => listener(next)));
  const asked: ApprovalRequest[] = [];
  const left: HarnessPermissionMode[] = [];
  const gate = createToolGate({
    mode: () => mode,
    // As the session settles it: with the mode's answer, unless the user answers first (here: refuses).
    requestApproval: (request) => (asked.push(request), request.answered ?? Promise.resolve({ behavior: "deny", reason: "the user said no" })),
    onModeChange: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    onPlanApproved: (by) => left.push(by),
  });
  const plan = { plan: "1. Do it." };
  const approved = gate("ExitPlanMode", plan, options);
  await Promise.resolve();
  setMode("default");
  setMode("acceptEdits");
  assert.deepEqual(await approved, {
    behavior: "allow",
    updatedInput: plan,
    decisionClassification: "user_temporary",
    updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
  });
  assert.deepEqual(left, ["acceptEdits"]);
  assert.equal(listeners.size, 0, "the call answered listens no more");

  mode = "plan";
  const bypassed = gate("ExitPlanMode", plan, options);
  await Promise.resolve();
  setMode("bypassPermissions");
  assert.deepEqual(((await bypassed) as { updatedPermissions: unknown }).updatedPermissions, [{ type: "setMode", mode: "bypassPermissions", destination: "session" }]);

  // A call other than a plan waits for the user whatever the mode (Claude Code decides which edits it takes).
  mode = "default";
  assert.match(((await gate("Bash", { command: "make" }, options)) as { message: string }).message, /the user said no/);
  assert.equal(asked.at(-1)?.answered, undefined);
});

test("an approval says why Claude Code asks: the ask rule that forced it, then its reason", async () => {
  const asked: ApprovalRequest[] = [];
  const gate = createToolGate({ mode: () => "default", requestApproval: async (r) => (asked.push(r), { behavior: "allow" }) });
  await gate("Bash", { command: "make" }, { ...options, decisionReason: " a hook wants a look " });
  await gate("Bash", { command: "rm x" }, { ...options, decisionReason: "rm removes files", matchedAskRule: { source: "projectSettings", toolName: "Bash", ruleContent: "rm:*" } });
  await gate("Bash", { command: "ls" }, { ...options, decisionReason: "" });
  assert.deepEqual(
    asked.map((r) => r.reason),
    ["a hook wants a look", 'the ask rule "Bash(rm:*)" from projectSettings applies. rm removes files', undefined],
  );
  assert.ok(!("reason" in asked[2]));
});
