// A tool called directly goes through the same configuration, checks and gate as the model's calls.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { tempProject, type TempProject } from "../testing/project.ts";
import { scriptedProvider } from "../testing/scripted-provider.ts";
import { prepareToolInvocation, type ToolInvocationOptions } from "./invoke-tool.ts";

function optionsIn(project: TempProject, events: AgentEvent[], overrides: Partial<ToolInvocationOptions> = {}): ToolInvocationOptions {
  return {
    cwd: project.root,
    home: project.home,
    model: "test-model",
    managedSettingsPath: path.join(project.home, "managed-settings.json"),
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    ...overrides,
  };
}

async function invoke(project: TempProject, name: string, input: unknown, overrides: Partial<ToolInvocationOptions> = {}) {
  const events: AgentEvent[] = [];
  const prepared = await prepareToolInvocation(optionsIn(project, events, overrides), { id: "call-1", name, input });
  if (!prepared.ok) return { prepared, events };
  return { prepared, outcome: await prepared.run(), events };
}

test("a Bash call the rules allow runs in the project, with tool.started, its output and tool.completed", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { allow: ["Bash(echo:*)"] } });
  const { outcome, events } = await invoke(project, "Bash", { command: "echo hello" });
  assert.deepEqual(outcome, { output: "hello", isError: false });
  assert.equal(events[0].type, "tool.started");
  assert.equal(events.at(-1)?.type, "tool.completed");
});

test("a call a deny rule names is refused by that rule and never starts", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Bash(rm:*)"] } });
  const { outcome, events } = await invoke(project, "Bash", { command: "rm -rf x" }, { permissionMode: "bypassPermissions" });
  assert.equal(outcome?.denied, true);
  assert.equal(outcome?.needsApproval, undefined);
  assert.match(outcome!.output, /Bash\(rm:\*\)/);
  assert.equal(events.some((e) => e.type === "tool.started"), false);
});

test("a call that would ask for approval is refused and said to need it; bypassPermissions runs it", async (t) => {
  const project = await tempProject(t);
  const asked = await invoke(project, "Write", { file_path: path.join(project.root, "a.txt"), content: "x" });
  assert.equal(asked.outcome?.denied, true);
  assert.equal(asked.outcome?.needsApproval, true);
  assert.equal(asked.events.find((e) => e.type === "tool.completed" && e.needsApproval), asked.events.at(-1));
  assert.equal(await project.exists("a.txt"), false);
  const bypassed = await invoke(project, "Write", { file_path: path.join(project.root, "a.txt"), content: "x" }, { permissionMode: "bypassPermissions" });
  assert.equal(bypassed.outcome?.isError, false);
  assert.equal(await project.read("a.txt"), "x");
});

test("an unknown tool and an input the tool's schema refuses are told before anything runs", async (t) => {
  const project = await tempProject(t);
  const unknown = await invoke(project, "Nope", {});
  assert.deepEqual(unknown.prepared.ok ? undefined : unknown.prepared.problem, "unknown_tool");
  const bad = await invoke(project, "Bash", { command: 42 });
  assert.equal(bad.prepared.ok, false);
  if (!bad.prepared.ok) {
    assert.equal(bad.prepared.problem, "invalid_input");
    assert.match(bad.prepared.message, /parameter "command" must be a string/);
  }
});

test("PreToolUse and PostToolUse hooks of the settings run around the call", async (t) => {
  const project = await tempProject(t);
  const pre = await project.hook("pre.sh", `echo pre >> "$CLAUDE_PROJECT_DIR/hooks.log"`);
  const post = await project.hook("post.sh", `echo post >> "$CLAUDE_PROJECT_DIR/hooks.log"`);
  await project.settings({
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: pre }] }], PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: post }] }] },
  });
  const { outcome } = await invoke(project, "Bash", { command: "echo ran" }, { permissionMode: "bypassPermissions" });
  assert.equal(outcome?.output, "ran");
  assert.equal(await project.read("hooks.log"), "pre\npost\n");
});

test("aborting the signal stops a long command", async (t) => {
  const project = await tempProject(t);
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const prepared = await prepareToolInvocation(optionsIn(project, events, { permissionMode: "bypassPermissions", signal: controller.signal }), {
    id: "c",
    name: "Bash",
    input: { command: "echo started; sleep 30" },
  });
  assert.ok(prepared.ok);
  const running = prepared.run();
  setTimeout(() => controller.abort(), 500);
  const started = Date.now();
  const outcome = await running;
  assert.ok(Date.now() - started < 10_000);
  assert.equal(outcome.isError, true);
});

test("a Task call runs its sub-agent: its calls and text come stamped with its id, its reply is the result", async (t) => {
  const project = await tempProject(t);
  await project.write("notes.md", "hello");
  const provider = scriptedProvider([{ toolCalls: [{ id: "sub-glob", name: "Glob", input: { pattern: "*.md" } }] }, { text: ["Found ", "notes.md"] }]);
  const { outcome, events } = await invoke(project, "Task", { description: "Find notes", prompt: "Which notes are there?", subagent_type: "general-purpose" }, { provider });
  assert.deepEqual(outcome, { output: "Found notes.md", isError: false });
  const glob = events.find((e) => e.type === "tool.started" && e.toolName === "Glob");
  assert.ok(glob && glob.type === "tool.started");
  assert.equal(glob.parentToolUseId, "call-1");
  assert.match(glob.agentId ?? "", /^agent_/);
  assert.ok(events.some((e) => e.type === "assistant.delta" && e.parentToolUseId === "call-1" && e.text === "notes.md"));
  assert.equal(provider.requests[0].messages.at(-1)?.role, "user");
  assert.match(JSON.stringify(provider.requests[0].messages), /Which notes are there\?/);
});
