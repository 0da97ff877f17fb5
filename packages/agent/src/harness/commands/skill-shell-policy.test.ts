import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";

const DISABLED = "[shell command execution disabled by policy]";

test("disableSkillShellExecution: a command's ! commands are not run; a placeholder takes their place", async (t) => {
  const project = await tempProject(t);
  await project.settings({ disableSkillShellExecution: true }, "user");
  await project.write(".claude/commands/status.md", "---\nallowed-tools: Bash(touch:*)\n---\nState: !`touch RAN`\n```!\ntouch RAN_TOO\n```\nfor $ARGUMENTS.");
  const { provider, events } = await runInProject(project, [{ text: "ok" }], { prompt: "/status the release" });
  const sent = String(withoutCacheMarks(provider.requests[0].messages)[0]!.content);
  assert.equal(sent, `State: ${DISABLED}\n${DISABLED}\nfor the release.`);
  assert.equal(await project.exists("RAN"), false);
  assert.equal(await project.exists("RAN_TOO"), false);
  assert.ok(!events.some((e) => e.type === "tool.started"), "nothing was run");
});

test("disableSkillShellExecution holds for a skill the model invokes too", async (t) => {
  const project = await tempProject(t);
  await project.settings({ disableSkillShellExecution: true });
  await project.write(".claude/skills/ctx/SKILL.md", "---\ndescription: Gathers context\nallowed-tools: Bash(touch:*)\n---\nBranch: !`touch RAN`");
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "s1", name: "Skill", input: { skill: "ctx" } }] }, { text: "ok" }]);
  const last = withoutCacheMarks(provider.requests[1]!.messages).at(-1) as ModelMessage;
  const result = (last.content as ToolResultBlock[]).find((b) => b.type === "tool_result")!;
  assert.match(String(result.content), /Branch: \[shell command execution disabled by policy\]/);
  assert.equal(await project.exists("RAN"), false);
});
