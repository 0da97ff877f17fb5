import assert from "node:assert/strict";
import { test } from "node:test";
import { runInProject, tempProject } from "../testing/project.ts";

/** A beforeChanges that logs each call, with what the workspace held at that moment. */
function recorder(read: () => Promise<string>) {
  const calls: string[] = [];
  return { calls, beforeChanges: async () => void calls.push(await read()) };
}

test("beforeChanges is not called for a run that only reads and answers", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "one\n");
  const rec = recorder(() => project.read("a.txt"));
  const { result } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { name: "Read", input: { file_path: "a.txt" } },
          { name: "Grep", input: { pattern: "one" } },
          { name: "Glob", input: { pattern: "*.txt" } },
          { name: "TodoWrite", input: { todos: [{ content: "look", status: "in_progress", activeForm: "Looking" }] } },
        ],
      },
      { text: "It says one." },
    ],
    { beforeChanges: rec.beforeChanges, permissionMode: "bypassPermissions" },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(rec.calls, []);
});

test("beforeChanges is awaited before a tool that may change files runs, in the main run and in a sub-agent", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "one\n");
  const rec = recorder(() => project.read("a.txt"));
  const { result } = await runInProject(
    project,
    [
      { toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] },
      { toolCalls: [{ name: "Bash", input: { command: "echo two >> a.txt" } }] },
      { toolCalls: [{ name: "Task", input: { description: "edit", prompt: "Change a.txt", subagent_type: "general-purpose" } }] },
      // The sub-agent's turns.
      { toolCalls: [{ name: "Bash", input: { command: "sed -i s/two/three/ a.txt" } }] },
      { text: "Edited." },
      { text: "Done." },
    ],
    { beforeChanges: rec.beforeChanges, permissionMode: "bypassPermissions" },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.read("a.txt"), "one\nthree\n");
  // Before Bash, before Task (a sub-agent may change anything), before the sub-agent's Bash.
  assert.deepEqual(rec.calls, ["one\n", "one\ntwo\n", "one\ntwo\n"]);
});

test("beforeChanges is awaited before a hook's command runs, and a rejection does not stop the run", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "one\n");
  const hook = await project.hook("touch.sh", `echo hooked >> "$CLAUDE_PROJECT_DIR/a.txt"`);
  await project.settings({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] } });
  const seen: string[] = [];
  const { result } = await runInProject(project, [{ text: "Hello." }], {
    beforeChanges: async () => {
      seen.push(await project.read("a.txt"));
      throw new Error("the snapshot failed");
    },
  });
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(seen, ["one\n"]);
  assert.equal(await project.read("a.txt"), "one\nhooked\n");
});

test("beforeChanges names the call about to run (a sub-agent's too); a hook's command is no call", async (t) => {
  const project = await tempProject(t);
  const hook = await project.hook("noop.sh", "true");
  await project.settings({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] } });
  const ids: (string | undefined)[] = [];
  const { result } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_bash", name: "Bash", input: { command: "echo a > a.txt" } }] },
      { toolCalls: [{ id: "toolu_task", name: "Task", input: { description: "edit", prompt: "Change a.txt", subagent_type: "general-purpose" } }] },
      { toolCalls: [{ id: "toolu_sub", name: "Write", input: { file_path: "b.txt", content: "b" } }] },
      { text: "Edited." },
      { text: "Done." },
    ],
    { beforeChanges: async (id) => void ids.push(id), permissionMode: "bypassPermissions" },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(ids, [undefined, "toolu_bash", "toolu_task", "toolu_sub"]);
});
