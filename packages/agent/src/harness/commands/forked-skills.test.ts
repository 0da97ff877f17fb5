// Skills with `context: fork`: their prompt is a sub-agent's task, and only its answer returns.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { TEST_PNG_BASE64 } from "@harness/test-utils";
import { systemText, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";

const researchSkill = (frontmatter: string) => `---
name: research
description: Research a question about the code base thoroughly
${frontmatter}
---
Research $ARGUMENTS thoroughly: find the files involved with Glob and Grep, read them, and report what you found with file references.
`;

async function withSkill(project: TempProject, frontmatter: string): Promise<void> {
  await project.write(".claude/skills/research/SKILL.md", researchSkill(frontmatter));
}

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

test("/name of a forked skill runs it in its sub-agent first; the model gets the typed prompt and only the answer", async (t) => {
  const project = await tempProject(t);
  await withSkill(project, "context: fork\nagent: Explore");
  await project.write("src/parser.ts", "export const parse = () => 1;\n");
  const { provider, result, events } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_glob", name: "Glob", input: { pattern: "src/*.ts" } }] },
      { text: "The parser lives in src/parser.ts." },
      { text: "The research found the parser in src/parser.ts." },
    ],
    { prompt: "/research where the parser is" },
  );

  assert.equal(result.stopReason, "end_turn");
  const [task, , main] = provider.requests;
  assert.match(systemText(task), /READ-ONLY/, "the Explore agent's prompt");
  assert.equal(String(withoutCacheMarks(task!.messages)[0]!.content).includes("Research where the parser is thoroughly"), true);
  assert.ok(!task!.tools?.some((tool) => tool.name === "Write"), "with the Explore agent's tools");

  const sent = withoutCacheMarks(main!.messages);
  assert.equal(sent.length, 1, "the sub-agent's work is not in the conversation");
  const blocks = sent[0]!.content as { type: string; text: string }[];
  assert.equal(blocks[0]!.text, "/research where the parser is");
  assert.match(blocks[1]!.text, /^<skill-result name="research" agent="Explore">\nThe skill ran in a sub-agent, which finished\. Its answer:\n\nThe parser lives in src\/parser\.ts\.\n<\/skill-result>$/);
  assert.doesNotMatch(JSON.stringify(sent), /Research where the parser is thoroughly/);

  const started = events.find((e) => e.type === "tool.started" && e.toolName === "Skill");
  assert.ok(started && started.type === "tool.started");
  assert.deepEqual(started.input, { skill: "research", args: "where the parser is" });
  const nested = events.filter((e) => e.type === "tool.started" && e.parentToolUseId === started.toolUseId);
  assert.deepEqual(nested.map((e) => e.type === "tool.started" && e.toolName), ["Glob"], "the sub-agent's calls are shown under the Skill call");
  const completed = events.find((e) => e.type === "tool.completed" && e.toolUseId === started.toolUseId);
  assert.deepEqual(completed && completed.type === "tool.completed" && [completed.output, completed.isError], ["The parser lives in src/parser.ts.", false]);
  assert.equal(result.usage.inputTokens, 30, "the sub-agent's calls are counted");
});

test("a forked skill the model invokes answers the Skill call with its sub-agent's answer", async (t) => {
  const project = await tempProject(t);
  await withSkill(project, "context: fork");
  const { provider, result } = await runInProject(project, [
    { toolCalls: [{ id: "toolu_skill", name: "Skill", input: { skill: "research", args: "the retry policy" } }] },
    { text: "Retries live in retry-policy.ts." },
    { text: "Done: see retry-policy.ts." },
  ]);

  assert.equal(result.stopReason, "end_turn");
  assert.match(String(withoutCacheMarks(provider.requests[1]!.messages)[0]!.content), /^Base directory for this skill: .*\n\nResearch the retry policy thoroughly/);
  assert.ok(provider.requests[1]!.tools?.some((tool) => tool.name === "Write"), "general-purpose by default, with every tool");
  const [answer] = resultsIn(withoutCacheMarks(provider.requests[2]!.messages).at(-1));
  assert.equal(answer!.content, "Retries live in retry-policy.ts.");
  assert.notEqual(answer!.is_error, true);
});

test("a forked skill naming an agent that does not exist says so, and the model is told", async (t) => {
  const project = await tempProject(t);
  await withSkill(project, "context: fork\nagent: Researcher");
  const { provider, result } = await runInProject(project, [{ text: "I could not run the skill." }], { prompt: "/research anything" });

  assert.equal(result.stopReason, "end_turn");
  assert.equal(provider.requests.length, 1, "no sub-agent ran");
  const blocks = withoutCacheMarks(provider.requests[0]!.messages)[0]!.content as { text: string }[];
  assert.match(blocks[1]!.text, /which did not finish\. Its answer:\n\nThe skill research runs in the agent Researcher, which is not defined \(agents: .*Explore.*\)/);
});

test("a skill's context other than fork, or an agent without it, is named and the skill runs in the conversation", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/one/SKILL.md", "---\ndescription: One\ncontext: isolated\n---\nDo one.\n");
  await project.write(".claude/skills/two/SKILL.md", "---\ndescription: Two\nagent: Explore\n---\nDo two.\n");
  const { provider, events } = await runInProject(project, [{ text: "Done." }], { prompt: "/one" });

  const warnings = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message).join("\n");
  assert.match(warnings, /context must be fork .*got "isolated"; the skill runs in the conversation/);
  assert.match(warnings, /agent chooses the sub-agent of a skill with context: fork/);
  assert.match(String(withoutCacheMarks(provider.requests[0]!.messages)[0]!.content), /Do one\./);
});

test("a forked skill's allowed-tools hold for its `!` commands and its sub-agent, not for the conversation after it", async (t) => {
  for (const invoked of ["typed", "by the model"] as const) {
    const project = await tempProject(t);
    await project.write(".claude/skills/research/SKILL.md", "---\ndescription: Research\ncontext: fork\nallowed-tools: Bash(touch:*)\n---\nResearch $ARGUMENTS; !`touch prepared.txt`\n");
    const asked: string[] = [];
    const steps = [
      { toolCalls: [{ id: "toolu_sub", name: "Bash", input: { command: "touch sub.txt" } }] },
      { text: "The sub-agent echoed." },
      { toolCalls: [{ id: "toolu_main", name: "Bash", input: { command: "touch main.txt" } }] },
      { text: "Done." },
    ];
    const { result } = await runInProject(project, invoked === "typed" ? steps : [{ toolCalls: [{ id: "toolu_skill", name: "Skill", input: { skill: "research", args: "x" } }] }, ...steps], {
      ...(invoked === "typed" && { prompt: "/research x" }),
      approve: async (request) => {
        asked.push(request.toolUseId);
        return { behavior: "deny", message: "Not now." };
      },
    });

    assert.equal(result.stopReason, "end_turn", invoked);
    assert.ok(await project.exists("sub.txt"), `${invoked}: the sub-agent's call runs without asking`);
    assert.ok(await project.exists("prepared.txt"), `${invoked}: the skill's \`!\` command ran`);
    assert.deepEqual(asked, ["toolu_main"], `${invoked}: the conversation's own call asks`);
  }
});

test("${CLAUDE_SESSION_ID} in a skill is the conversation's id, typed or invoked by the model", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/log/SKILL.md", "---\ndescription: Log the session\n---\nAppend to logs/${CLAUDE_SESSION_ID}.md\n");
  const typed = await runInProject(project, [{ text: "ok" }], { prompt: "/log", sessionId: "sess-42" });
  assert.match(String(withoutCacheMarks(typed.provider.requests[0]!.messages)[0]!.content), /Append to logs\/sess-42\.md/);
  const invoked = await runInProject(project, [{ toolCalls: [{ id: "toolu_s", name: "Skill", input: { skill: "log" } }] }, { text: "ok" }], { sessionId: "sess-43" });
  const [result] = resultsIn(withoutCacheMarks(invoked.provider.requests[1]!.messages).at(-1));
  assert.match(String(result!.content), /Append to logs\/sess-43\.md/);
});

test("${CLAUDE_SESSION_ID} in a custom command is the conversation's id too: commands work as skills do", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/log.md", "---\ndescription: Log the session\n---\nAppend to logs/${CLAUDE_SESSION_ID}.md about $ARGUMENTS\n");
  const typed = await runInProject(project, [{ text: "ok" }], { prompt: "/log the fix", sessionId: "sess-44" });
  assert.match(String(withoutCacheMarks(typed.provider.requests[0]!.messages)[0]!.content), /Append to logs\/sess-44\.md about the fix/);
  const invoked = await runInProject(project, [{ toolCalls: [{ id: "toolu_s", name: "Skill", input: { skill: "log", args: "the fix" } }] }, { text: "ok" }], { sessionId: "sess-45" });
  const [result] = resultsIn(withoutCacheMarks(invoked.provider.requests[1]!.messages).at(-1));
  assert.match(String(result!.content), /Append to logs\/sess-45\.md about the fix/);
});

test("a picture the typed prompt of a forked skill names reaches its sub-agent, typed or invoked by the model", async (t) => {
  const project = await tempProject(t);
  await withSkill(project, "context: fork");
  await project.write("logo.png", Buffer.from(TEST_PNG_BASE64, "base64"));
  const typed = await runInProject(project, [{ text: "A logo." }, { text: "Done." }], { prompt: "/research @logo.png" });
  const invoked = await runInProject(project, [{ toolCalls: [{ id: "toolu_skill", name: "Skill", input: { skill: "research", args: "@logo.png" } }] }, { text: "A logo." }, { text: "Done." }]);
  for (const task of [typed.provider.requests[0]!, invoked.provider.requests[1]!]) {
    const blocks = withoutCacheMarks(task.messages)[0]!.content as { type: string; source?: { data: string } }[];
    assert.ok(Array.isArray(blocks) && blocks.some((b) => b.type === "image" && b.source?.data === TEST_PNG_BASE64), JSON.stringify(blocks).slice(0, 300));
  }
});

test("a forked skill's own hooks run while its sub-agent does (its Stop hooks as SubagentStop), not for the conversation", async (t) => {
  const project = await tempProject(t);
  const log = `${project.root}/hooks.log`;
  const hook = await project.hook("log.sh", `input=$(cat)\nprintf '%s\\n' "$input" >> "${log}"`);
  await withSkill(project, `context: fork\nhooks:\n  PreToolUse:\n    - matcher: Glob\n      hooks:\n        - type: command\n          command: '${hook}'\n  Stop:\n    - hooks:\n        - type: command\n          command: '${hook}'`);
  const { result } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_sub_glob", name: "Glob", input: { pattern: "*.ts" } }] },
      { text: "Nothing found." },
      { toolCalls: [{ id: "toolu_main_glob", name: "Glob", input: { pattern: "*.md" } }] },
      { text: "Done." },
    ],
    { prompt: "/research the parser" },
  );
  assert.equal(result.stopReason, "end_turn");
  const inputs = (await project.read("hooks.log")).trim().split("\n").map((line) => JSON.parse(line) as { hook_event_name: string; tool_use_id?: string });
  assert.deepEqual(inputs.map((i) => [i.hook_event_name, i.tool_use_id]), [["PreToolUse", "toolu_sub_glob"], ["SubagentStop", undefined]]);
});

test("\"ultrathink\" in a forked skill turns thinking on for its sub-agent; in a skill the model loads, for the rest of the run", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/deep/SKILL.md", "---\nname: deep\ndescription: Looks deeply.\ncontext: fork\n---\nultrathink about $ARGUMENTS.");
  await project.write(".claude/skills/calm/SKILL.md", "---\nname: calm\ndescription: Looks calmly.\n---\nUltrathink about $ARGUMENTS, then answer.");
  const forked = await runInProject(project, [{ text: "Found it." }, { text: "Done." }], { prompt: "/deep the cache" });
  assert.deepEqual(
    forked.provider.requests.map((r) => r.thinking),
    [{ budgetTokens: 31_999 }, undefined],
    "the sub-agent thinks; the conversation, which did not ask, does not",
  );
  const loaded = await runInProject(project, [{ toolCalls: [{ id: "toolu_skill", name: "Skill", input: { skill: "calm", args: "the cache" } }] }, { text: "Done." }]);
  assert.deepEqual(
    loaded.provider.requests.map((r) => r.thinking),
    [undefined, { budgetTokens: 31_999 }],
  );
});
