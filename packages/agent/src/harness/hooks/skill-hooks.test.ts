// Hooks in a SKILL.md's frontmatter: they join the conversation's once the skill is invoked, for
// the rest of that run; a `once` hook runs once in the conversation.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";
import { createAgentResources } from "../resources.ts";

async function guardSkill(project: TempProject, log: string, once = false): Promise<void> {
  const hook = await project.hook("log.sh", `input=$(cat)\nprintf '%s\\n' "$input" >> "${log}"`);
  await project.write(
    ".claude/skills/guard/SKILL.md",
    `---\ndescription: Guard the files\nhooks:\n  PostToolUse:\n    - matcher: Write\n      hooks:\n        - type: command\n          command: '${hook}'\n${once ? "          once: true\n" : ""}---\nWrite carefully.\n`,
  );
}

const logged = async (project: TempProject) =>
  (await project.exists("hooks.log")) ? (await project.read("hooks.log")).trim().split("\n").map((line) => (JSON.parse(line) as { tool_input: { file_path: string } }).tool_input.file_path) : [];

test("a skill's hooks hold from its invocation to the end of the run: typed, or invoked by the model", async (t) => {
  const project = await tempProject(t);
  await guardSkill(project, `${project.root}/hooks.log`);
  const write = (id: string, file: string) => ({ id, name: "Write", input: { file_path: file, content: "x" } });

  await runInProject(project, [{ toolCalls: [write("w1", "typed.txt")] }, { text: "ok" }], { prompt: "/guard", permissionMode: "bypassPermissions" });
  assert.deepEqual(await logged(project), ["typed.txt"]);

  await runInProject(project, [{ toolCalls: [write("w2", "before.txt")] }, { toolCalls: [{ id: "s", name: "Skill", input: { skill: "guard" } }] }, { toolCalls: [write("w3", "after.txt")] }, { text: "ok" }], {
    permissionMode: "bypassPermissions",
  });
  assert.deepEqual(await logged(project), ["typed.txt", "after.txt"], "not before the Skill call");

  await runInProject(project, [{ toolCalls: [write("w4", "later.txt")] }, { text: "ok" }], { permissionMode: "bypassPermissions" });
  assert.deepEqual(await logged(project), ["typed.txt", "after.txt"], "a run that does not invoke it has none of its hooks");
});

test("a skill's once hook runs once in the conversation, however often the skill is invoked", async (t) => {
  const project = await tempProject(t);
  await guardSkill(project, `${project.root}/hooks.log`, true);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const twice = [{ toolCalls: [{ id: "a", name: "Write", input: { file_path: "a.txt", content: "x" } }, { id: "b", name: "Write", input: { file_path: "b.txt", content: "x" } }] }, { text: "ok" }];
  const first = await runInProject(project, twice, { prompt: "/guard", permissionMode: "bypassPermissions", resources });
  await runInProject(project, [{ toolCalls: [{ id: "c", name: "Write", input: { file_path: "c.txt", content: "x" } }] }, { text: "ok" }], { prompt: "/guard", permissionMode: "bypassPermissions", resources, history: first.result.transcript });
  assert.equal((await logged(project)).length, 1);
});

test("a bad hook in a skill is named and left out; the skill still loads", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/guard/SKILL.md", "---\ndescription: Guard\nhooks:\n  PostToolUse: nope\n---\nWrite carefully.\n");
  const { provider, events } = await runInProject(project, [{ text: "ok" }], { prompt: "/guard" });
  const warnings = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message).join("\n");
  assert.match(warnings, /SKILL\.md.*hooks\.PostToolUse.*must be a list.*the skill loads without it/);
  assert.match(JSON.stringify(provider.requests[0]!.messages), /Write carefully\./);
});
