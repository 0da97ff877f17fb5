// Hooks in an agent file's frontmatter: they run while that sub-agent does, after the settings'.
import assert from "node:assert/strict";
import { test } from "node:test";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";

async function reviewerAgent(project: TempProject, hooksYaml: string): Promise<void> {
  await project.write(".claude/agents/reviewer.md", `---\nname: reviewer\ndescription: Reviews changes\n${hooksYaml}---\nYou review changes.\n`);
}

const taskCall = { id: "toolu_task", name: "Task", input: { description: "review", prompt: "Review the change", subagent_type: "reviewer" } };

test("an agent file's hooks run for its own calls, not the main agent's, and its Stop hooks as SubagentStop", async (t) => {
  const project = await tempProject(t);
  const log = `${project.root}/hooks.log`;
  const pre = await project.hook("pre.sh", `input=$(cat)\nprintf '%s\\n' "$input" >> "${log}"`);
  const stop = await project.hook("stop.sh", `input=$(cat)\nif printf '%s' "$input" | grep -q '"stop_hook_active":false'; then echo '{"decision":"block","reason":"Check the tests too."}'; fi`);
  await reviewerAgent(project, `hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: '${pre}'\n  Stop:\n    - hooks:\n        - type: command\n          command: '${stop}'\n`);
  const { provider, result } = await runInProject(
    project,
    [
      { toolCalls: [taskCall, { id: "toolu_main_bash", name: "Bash", input: { command: "echo main" } }] },
      { toolCalls: [{ id: "toolu_sub_bash", name: "Bash", input: { command: "echo sub" } }] },
      { text: "Looks fine." },
      { text: "Tests fine too." },
      { text: "Reviewed." },
    ],
    { permissionMode: "bypassPermissions" },
  );

  assert.equal(result.stopReason, "end_turn");
  const inputs = (await project.read("hooks.log")).trim().split("\n").map((line) => JSON.parse(line) as { tool_input: { command: string }; agent_type?: string });
  assert.deepEqual(inputs.map((i) => [i.tool_input.command, i.agent_type]), [["echo sub", "reviewer"]], "only the sub-agent's Bash call");
  assert.match(JSON.stringify(withoutCacheMarks(provider.requests.find((r) => JSON.stringify(r.messages).includes("Check the tests too."))!.messages).at(-1)), /SubagentStop hook feedback:\\nCheck the tests too\./);
});

test("a bad hook in an agent file is named and left out, and the agent still runs", async (t) => {
  const project = await tempProject(t);
  await reviewerAgent(project, `hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n  BeforeTool: []\n`);
  const { result, events } = await runInProject(project, [{ toolCalls: [taskCall] }, { text: "Reviewed the change." }, { text: "Done." }]);

  assert.equal(result.stopReason, "end_turn");
  const warnings = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message).join("\n");
  assert.match(warnings, /reviewer\.md.*hooks\.PreToolUse\[0\]\.hooks\[0\]\.command.*the agent loads without it/);
  assert.match(warnings, /unknown hook event "BeforeTool"/);
  assert.match(JSON.stringify(result.transcript), /Reviewed the change\./);
});

test("under allowManagedHooksOnly an agent file's hooks do not run", async (t) => {
  const project = await tempProject(t);
  await project.writeHome("managed-settings.json", JSON.stringify({ allowManagedHooksOnly: true }));
  const pre = await project.hook("pre.sh", `cat > /dev/null\ntouch "$CLAUDE_PROJECT_DIR/ran"`);
  await reviewerAgent(project, `hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: '${pre}'\n`);
  await runInProject(project, [{ toolCalls: [taskCall] }, { toolCalls: [{ name: "Glob", input: { pattern: "*" } }] }, { text: "ok" }, { text: "Done." }], { permissionMode: "bypassPermissions" });
  assert.equal(await project.exists("ran"), false);
});
