import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApprovalDecision, RunConfigureChange } from "../types.ts";
import { BASE_SYSTEM_PROMPT } from "../system-prompt.ts";
import { systemText } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";

/** A configure channel the test pushes changes into, as the runner does from POST …/configure. */
function channel() {
  const listeners = new Set<(change: RunConfigureChange) => void>();
  return {
    onConfigure: (listener: (change: RunConfigureChange) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send: (change: RunConfigureChange) => listeners.forEach((l) => l(change)),
    get listening() {
      return listeners.size;
    },
  };
}

test("a model change sent mid-run applies from the next model call", async (t) => {
  const project = await tempProject(t);
  const config = channel();
  const { provider, result } = await runInProject(
    project,
    [
      () => {
        config.send({ model: "model-b", maxTurns: 5 });
        return { toolCalls: [{ id: "toolu_1", name: "Glob", input: { pattern: "*" } }] };
      },
      { text: "done" },
    ],
    { onConfigure: config.onConfigure, permissionMode: "bypassPermissions" },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(provider.requests.map((r) => r.model), ["test-model", "model-b"]);
  assert.equal(result.model, "model-b");
  assert.equal(config.listening, 0, "the run unsubscribes when it ends");
});

test("a permission mode change mid-run applies from the next model call on", async (t) => {
  const project = await tempProject(t);
  const config = channel();
  const { provider } = await runInProject(
    project,
    [
      () => {
        // Sent while the model answers: this reply's call is still checked in the old mode.
        config.send({ permissionMode: "acceptEdits" });
        return { toolCalls: [{ id: "toolu_1", name: "Write", input: { file_path: "first.txt", content: "1" } }] };
      },
      { toolCalls: [{ id: "toolu_2", name: "Write", input: { file_path: "second.txt", content: "2" } }] },
      { text: "done" },
    ],
    { onConfigure: config.onConfigure, permissionMode: "default" },
  );
  // "default" with nobody to approve refuses the first write; from the next call on, acceptEdits
  // lets the second one through.
  assert.equal(await project.exists("first.txt"), false);
  assert.equal(await project.exists("second.txt"), true);
  assert.equal(provider.requests.length, 3);
});

test("a system prompt set mid-run applies from the next call, and an empty one brings the default back", async (t) => {
  const project = await tempProject(t);
  const config = channel();
  const { provider } = await runInProject(
    project,
    [
      () => {
        config.send({ systemPrompt: "You are a pirate." });
        return { toolCalls: [{ id: "toolu_1", name: "Glob", input: { pattern: "*" } }] };
      },
      () => {
        config.send({ systemPrompt: "" });
        return { toolCalls: [{ id: "toolu_2", name: "Glob", input: { pattern: "*" } }] };
      },
      { text: "done" },
    ],
    { onConfigure: config.onConfigure, permissionMode: "bypassPermissions" },
  );
  const [first, second, third] = provider.requests.map(systemText);
  assert.ok(first.startsWith(BASE_SYSTEM_PROMPT));
  assert.ok(second.startsWith("You are a pirate."));
  assert.ok(!second.includes(BASE_SYSTEM_PROMPT));
  assert.ok(third.startsWith(BASE_SYSTEM_PROMPT), "empty is the default, as it is when a run starts");
});

test("a maxTurns lowered mid-run holds from the next turn: no model call past it", async (t) => {
  const project = await tempProject(t);
  const config = channel();
  const { provider, result } = await runInProject(
    project,
    [
      () => {
        config.send({ maxTurns: 1 });
        return { toolCalls: [{ id: "toolu_1", name: "Glob", input: { pattern: "*" } }] };
      },
      { text: "a turn too many" },
    ],
    { onConfigure: config.onConfigure, permissionMode: "bypassPermissions" },
  );
  assert.equal(provider.requests.length, 1);
  assert.equal(result.stopReason, "max_turns");
  assert.match(result.errorMessage ?? "", /maximum of 1 model turn /);
});

test("a permission mode sent while a call waits for approval answers it when the new mode decides it", async (t) => {
  const project = await tempProject(t);
  const config = channel();
  const asked: string[] = [];
  const answeredBy = new Map<string, string>();
  const { provider, result } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_edit", name: "Write", input: { file_path: "notes.txt", content: "hi\n" } },
          { id: "toolu_bash", name: "Bash", input: { command: "git push --force" } },
        ],
      },
      { text: "done" },
    ],
    {
      onConfigure: config.onConfigure,
      permissionMode: "default",
      approve: (request) => {
        asked.push(request.toolName);
        if (asked.length === 1) setTimeout(() => config.send({ permissionMode: "acceptEdits" }), 20);
        // The user answers only after a while (a denial): what settles sooner is the mode's answer.
        const user = new Promise<ApprovalDecision>((resolve) => setTimeout(() => resolve({ behavior: "deny", reason: "not now" }), 400));
        const first = (by: string) => (decision: ApprovalDecision) => {
          if (!answeredBy.has(request.toolName)) answeredBy.set(request.toolName, by);
          return decision;
        };
        return Promise.race([user.then(first("user")), request.answered!.then(first("mode"))]);
      },
    },
  );

  assert.deepEqual(asked.sort(), ["Bash", "Write"]);
  assert.deepEqual(Object.fromEntries(answeredBy), { Write: "mode", Bash: "user" }, "acceptEdits decides the Write, and would still ask for the Bash call");
  assert.equal(await project.read("notes.txt"), "hi\n");
  assert.equal(result.stopReason, "end_turn");
  assert.match(JSON.stringify(provider.requests[1]!.messages.at(-1)), /The user denied this tool call: not now/);
});

test("a mode that would refuse a waiting call refuses it, and one the settings forbid answers nothing", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { disableBypassPermissionsMode: "disable" } });
  const config = channel();
  const answers: string[] = [];
  const { provider } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "plan.txt", content: "x" } }] }, { text: "ok" }],
    {
      onConfigure: config.onConfigure,
      permissionMode: "default",
      approve: (request) => {
        setTimeout(() => config.send({ permissionMode: "bypassPermissions" }), 10);
        setTimeout(() => config.send({ permissionMode: "plan" }), 60);
        return request.answered!.then((decision) => (answers.push(decision.behavior), decision));
      },
    },
  );

  assert.deepEqual(answers, ["deny"]);
  assert.equal(await project.exists("plan.txt"), false);
  assert.match(JSON.stringify(provider.requests[1]!.messages.at(-1)), /refused in the permission mode plan/);
});

test("bypassPermissions the settings forbid, asked for at the start or mid-run, is said refused with the mode the run goes on in", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { disableBypassPermissionsMode: "disable" } });
  const modes = (events: { type: string }[]) => events.filter((e) => e.type === "mode.changed");
  const started = await runInProject(project, [{ text: "ok" }], { permissionMode: "bypassPermissions" });
  assert.deepEqual(modes(started.events), [{ type: "mode.changed", permissionMode: "default", refused: "bypassPermissions" }]);

  const config = channel();
  const midRun = await runInProject(
    project,
    [
      () => {
        config.send({ permissionMode: "bypassPermissions" });
        return { toolCalls: [{ id: "toolu_1", name: "Glob", input: { pattern: "*" } }] };
      },
      { text: "done" },
    ],
    { onConfigure: config.onConfigure, permissionMode: "acceptEdits" },
  );
  assert.deepEqual(modes(midRun.events), [{ type: "mode.changed", permissionMode: "acceptEdits", refused: "bypassPermissions" }]);
});

test("a mode sent while a call waits leaves waiting one a PreToolUse hook asked about", async (t) => {
  const project = await tempProject(t);
  const hook = await project.hook("ask.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Writes are reviewed."}}'`);
  await project.settings({ hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: hook }] }] } });
  const config = channel();
  const answeredBy: string[] = [];
  await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "notes.txt", content: "x" } }] }, { text: "ok" }],
    {
      onConfigure: config.onConfigure,
      permissionMode: "default",
      approve: (request) => {
        setTimeout(() => config.send({ permissionMode: "acceptEdits" }), 10);
        const user = new Promise<ApprovalDecision>((resolve) => setTimeout(() => resolve({ behavior: "deny", reason: "not now" }), 200));
        return Promise.race([user.then((d) => (answeredBy.push("user"), d)), request.answered!.then((d) => (answeredBy.push("mode"), d))]);
      },
    },
  );

  assert.deepEqual(answeredBy, ["user"], "the hook's ask still asks in acceptEdits mode");
  assert.equal(await project.exists("notes.txt"), false);
});

test("a new permission mode leaves a sub-agent's waiting call to the user: the sub-agent keeps its own mode", async (t) => {
  const project = await tempProject(t);
  const config = channel();
  const answeredBy: string[] = [];
  await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_task", name: "Task", input: { description: "write", prompt: "Write notes.txt", subagent_type: "general-purpose" } }] },
      { toolCalls: [{ id: "toolu_sub_write", name: "Write", input: { file_path: "notes.txt", content: "x" } }] },
      { text: "The user said no." },
      { text: "done" },
    ],
    {
      onConfigure: config.onConfigure,
      permissionMode: "default",
      approve: (request) => {
        setTimeout(() => config.send({ permissionMode: "acceptEdits" }), 10);
        const user = new Promise<ApprovalDecision>((resolve) => setTimeout(() => resolve({ behavior: "deny", reason: "no" }), 200));
        const answered = request.answered ?? new Promise<never>(() => {});
        return Promise.race([user.then((d) => (answeredBy.push("user"), d)), answered.then((d) => (answeredBy.push("mode"), d))]);
      },
    },
  );
  assert.deepEqual(answeredBy, ["user"]);
  assert.equal(await project.exists("notes.txt"), false);
});
