import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import type { TranscriptEntry } from "../../compaction/types.ts";
import { systemText, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** A conversation of `turns` finished exchanges. */
function conversation(turns: number): TranscriptEntry[] {
  return Array.from({ length: turns }, (_, i): TranscriptEntry[] => [
    { role: "user", content: `Question ${i + 1}` },
    { role: "assistant", content: [{ type: "text", text: `Answer ${i + 1}` }] },
  ]).flat();
}

test("a custom command expands with its arguments, runs on its model, and may use its allowed tools", async (t) => {
  const project = await tempProject(t);
  await project.write(
    ".claude/commands/release/notes.md",
    "---\ndescription: Draft release notes\nmodel: haiku\nallowed-tools: Bash(touch:*)\n---\nDraft the notes for version $0 (all arguments: $ARGUMENTS).",
  );
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ name: "Bash", input: { command: "touch NOTES.md" } }] }, { text: "Drafted." }], {
    prompt: "/release:notes 2.1 final",
  });

  assert.equal(result.stopReason, "end_turn");
  assert.equal(provider.requests[0].model, "claude-haiku-4-5");
  assert.equal(result.model, "claude-haiku-4-5");
  assert.deepEqual(withoutCacheMarks(provider.requests[0].messages), [{ role: "user", content: "Draft the notes for version 2.1 (all arguments: 2.1 final)." }]);
  assert.equal(await project.exists("NOTES.md"), true, "the command's allowed-tools let touch run without approval");
});

test("/help lists the built-in and the project's commands without calling the model", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/deploy.md", "---\ndescription: Deploy to staging\n---\nDeploy.");
  const history = conversation(1);
  const { provider, result, events } = await runInProject(project, [], { prompt: "/help", history });

  assert.equal(provider.requests.length, 0);
  assert.equal(result.stopReason, "end_turn");
  assert.match(result.result, /\/compact \[instructions\]/);
  assert.match(result.result, /\/deploy — Deploy to staging \(project command\)/);
  assert.deepEqual(events, [{ type: "assistant.delta", text: result.result }]);
  assert.deepEqual(result.transcript, history);
});

test("/compact summarizes now: PreCompact runs, the instructions reach the summary request, the summary is the reply", async (t) => {
  const project = await tempProject(t);
  const pre = await project.hook("pre-compact.sh", `cat > "$CLAUDE_PROJECT_DIR/pre-compact.json"`);
  await project.settings({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: pre }] }] } });
  const history = conversation(4);
  const { provider, result, events } = await runInProject(project, [{ text: "<summary>We answered four questions.</summary>", usage: { inputTokens: 300, outputTokens: 20 } }], {
    prompt: "/compact keep the numbers",
    history,
  });

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "We answered four questions.");
  assert.deepEqual(events.filter((e) => e.type === "assistant.delta"), [{ type: "assistant.delta", text: "We answered four questions." }]);
  assert.equal(provider.requests.length, 1);
  const summaryRequest = JSON.stringify(provider.requests[0].messages);
  assert.match(summaryRequest, /keep the numbers/);
  assert.match(summaryRequest, /Question 1/);
  assert.equal(provider.requests[0].tools, undefined);

  const hookInput = JSON.parse(await project.read("pre-compact.json")) as Record<string, unknown>;
  assert.equal(hookInput.trigger, "manual");
  assert.equal(hookInput.custom_instructions, "keep the numbers");

  const summaryAt = result.transcript.findIndex((m) => m.meta?.kind === "compact-summary");
  assert.ok(summaryAt > 0);
  assert.deepEqual(result.transcript.slice(0, summaryAt), history.slice(0, summaryAt), "the record keeps the summarized messages");
  assert.match(JSON.stringify(result.transcript[summaryAt].content), /We answered four questions/);
  assert.deepEqual(result.turns, [{ inputTokens: 300, outputTokens: 20, unpricedCalls: 1 }]);
});

test("after a compaction PostCompact hooks hear the summary, and SessionStart hooks for \"compact\" put back what must survive it", async (t) => {
  const project = await tempProject(t);
  const post = await project.hook("post-compact.sh", `cat > "$CLAUDE_PROJECT_DIR/post-compact.json"`);
  const start = await project.hook("start.sh", `cat >/dev/null\necho 'Never deploy on Fridays.'`);
  await project.settings({
    hooks: {
      PostCompact: [{ matcher: "manual", hooks: [{ type: "command", command: post }] }],
      SessionStart: [{ matcher: "compact", hooks: [{ type: "command", command: start }] }],
    },
  });
  const { result } = await runInProject(project, [{ text: "<summary>We answered four questions.</summary>" }], { prompt: "/compact", history: conversation(4) });
  assert.equal(result.stopReason, "end_turn");
  const hookInput = JSON.parse(await project.read("post-compact.json")) as Record<string, unknown>;
  assert.deepEqual([hookInput.hook_event_name, hookInput.trigger, hookInput.compact_summary], ["PostCompact", "manual", "We answered four questions."]);
  const summaryAt = result.transcript.findIndex((m) => m.meta?.kind === "compact-summary");
  const after = JSON.stringify(result.transcript.slice(summaryAt));
  assert.match(after, /SessionStart hook additional context: Never deploy on Fridays\./);
  assert.doesNotMatch(JSON.stringify(result.transcript.slice(0, summaryAt)), /Never deploy/, "only after the summary");
});

test("the memory files are told of again to InstructionsLoaded hooks, once each: after /compact as compact, after /clear as session_start", async (t) => {
  const project = await tempProject(t);
  const memory = await project.write("CLAUDE.md", "Answer briefly.\n@notes.md\n");
  const notes = await project.write("notes.md", "Use metric units.\n");
  const log = await project.hook("loaded.sh", `input=$(cat); printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/loaded.log"`);
  await project.settings({ hooks: { InstructionsLoaded: [{ hooks: [{ type: "command", command: log }] }] } });
  const compacted = await runInProject(project, [{ text: "<summary>Four questions.</summary>" }], { prompt: "/compact", history: conversation(4) });
  assert.equal(compacted.result.stopReason, "end_turn");
  const cleared = await runInProject(project, [], { prompt: "/clear", history: conversation(1) });
  assert.equal(cleared.result.stopReason, "end_turn");
  const prompted = await runInProject(project, [{ text: "ok" }], { prompt: "hi", history: conversation(1) });
  assert.equal(prompted.result.stopReason, "end_turn");
  const events = (await project.read("loaded.log")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    events.map((event) => [event.hook_event_name, event.load_reason, event.memory_type, event.file_path]),
    [
      ["InstructionsLoaded", "compact", "Project", memory],
      ["InstructionsLoaded", "include", "Project", notes],
      ["InstructionsLoaded", "session_start", "Project", memory],
      ["InstructionsLoaded", "include", "Project", notes],
      ["InstructionsLoaded", "session_start", "Project", memory],
      ["InstructionsLoaded", "include", "Project", notes],
    ],
  );
});

test("/compact with nothing to summarize fails without changing the conversation", async (t) => {
  const project = await tempProject(t);
  const { provider, result } = await runInProject(project, [], { prompt: "/compact" });
  assert.equal(result.stopReason, "error");
  assert.match(result.errorMessage ?? "", /Nothing to compact/);
  assert.equal(provider.requests.length, 0);
  assert.deepEqual(result.transcript, []);
});

test("/clear starts a new conversation: an empty transcript and no model call", async (t) => {
  const project = await tempProject(t);
  const { provider, result, events } = await runInProject(project, [], { prompt: "/clear", history: conversation(2) });
  assert.equal(provider.requests.length, 0);
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(result.transcript, []);
  assert.ok(events.some((e) => e.type === "notice" && /new conversation/.test(e.message)));
});

test("an unknown /word goes to the model as typed", async (t) => {
  const project = await tempProject(t);
  const { provider } = await runInProject(project, [{ text: "ok" }], { prompt: "/usr/bin is on the PATH?" });
  assert.deepEqual(withoutCacheMarks(provider.requests[0].messages), [{ role: "user", content: "/usr/bin is on the PATH?" }]);
});

test("skills are listed for the model, and the Skill tool loads one's instructions", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/changelog/SKILL.md", "---\nname: changelog\ndescription: Writes changelog entries in the project's format.\n---\nAdd an entry under ## Unreleased for $ARGUMENTS.");
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ id: "toolu_s", name: "Skill", input: { skill: "changelog", args: "the new flag" } }] }, { text: "Added." }]);

  assert.equal(result.stopReason, "end_turn");
  assert.ok(provider.requests[0].tools?.some((tool) => tool.name === "Skill"));
  assert.match(systemText(provider.requests[0]), /- changelog: Writes changelog entries in the project's format\./);
  const [block] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(block.is_error, undefined);
  assert.match(String(block.content), /^Base directory for this skill: .*\.claude\/skills\/changelog\n\nAdd an entry under ## Unreleased for the new flag\.$/);
});

test("a skill's allowed-tools hold once the model invokes it, as when the user types its name", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/mark/SKILL.md", "---\nname: mark\ndescription: Marks the review as done.\nallowed-tools: Bash(touch:*)\n---\nRun touch REVIEWED.");
  const { result } = await runInProject(project, [
    // Before the skill: nobody to approve it, so refused.
    { toolCalls: [{ id: "toolu_early", name: "Bash", input: { command: "touch EARLY" } }] },
    { toolCalls: [{ id: "toolu_s", name: "Skill", input: { skill: "mark" } }] },
    { toolCalls: [{ id: "toolu_t", name: "Bash", input: { command: "touch REVIEWED" } }] },
    { text: "Marked." },
  ]);
  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.exists("EARLY"), false);
  assert.equal(await project.exists("REVIEWED"), true);
});

test("a skill a sub-agent invokes grants its allowed-tools to the sub-agent, not to the main run", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/helper/SKILL.md", "---\nname: helper\ndescription: helps\nallowed-tools: Bash(touch:*)\n---\nDo it.");
  await runInProject(project, [
    { toolCalls: [{ id: "t1", name: "Task", input: { description: "d", prompt: "use helper", subagent_type: "general-purpose" } }] },
    { toolCalls: [{ id: "s1", name: "Skill", input: { skill: "helper" } }] },
    { toolCalls: [{ id: "b1", name: "Bash", input: { command: "touch sub.txt" } }] },
    { text: "sub done" },
    { toolCalls: [{ id: "b2", name: "Bash", input: { command: "touch main.txt" } }] },
    { text: "done" },
  ]);
  assert.equal(await project.exists("sub.txt"), true);
  assert.equal(await project.exists("main.txt"), false, "nobody could approve it in the main run");
});

test("/skill-name runs a skill as a command", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/changelog/SKILL.md", "---\nname: changelog\ndescription: Writes changelog entries.\n---\nAdd an entry for $ARGUMENTS.");
  const { provider } = await runInProject(project, [{ text: "ok" }], { prompt: "/changelog the fix" });
  assert.match(String(withoutCacheMarks(provider.requests[0].messages)[0].content), /Add an entry for the fix\.$/);
});

test("\"ultrathink\" in a skill's or command's text turns thinking on for the run it starts, as in Claude Code", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/deep/SKILL.md", "---\nname: deep\ndescription: Looks deeply.\n---\nultrathink about $ARGUMENTS.");
  await project.write(".claude/commands/dig.md", "Dig into the failure. Ultrathink.");
  for (const prompt of ["/deep the cache", "/dig"]) {
    const { provider } = await runInProject(project, [{ text: "ok" }], { prompt });
    assert.deepEqual(provider.requests[0].thinking, { budgetTokens: 31_999 }, prompt);
  }
  const { provider } = await runInProject(project, [{ text: "ok" }], { prompt: "/changelog" });
  assert.equal(provider.requests[0].thinking, undefined, "a prompt that does not ask");
});

test("\"ultrathink\" typed holds for every request of the main agent, not for its sub-agents'", async (t) => {
  const project = await tempProject(t);
  const { provider } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_task", name: "Task", input: { description: "look", prompt: "Look around", subagent_type: "general-purpose" } }] },
      { text: "Looked." },
      { text: "Done." },
    ],
    { prompt: "ultrathink: what is slow here?" },
  );
  assert.deepEqual(
    provider.requests.map((r) => r.thinking),
    [{ budgetTokens: 31_999 }, undefined, { budgetTokens: 31_999 }],
  );
});

test("a command's ! shell commands run first, through the gate, and their output takes their place", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/status.md", "---\nallowed-tools: Bash(echo:*)\n---\nState:\n!`echo hello-from-shell`\nand !`touch NOT_ALLOWED`\nfor $ARGUMENTS.");
  const { provider, events } = await runInProject(project, [{ text: "ok" }], { prompt: "/status the release" });
  const sent = String(withoutCacheMarks(provider.requests[0].messages)[0].content);
  assert.match(sent, /^State:\nhello-from-shell\nand \[`touch NOT_ALLOWED` failed: .*\]\nfor the release\.$/s);
  assert.equal(await project.exists("NOT_ALLOWED"), false, "nobody could approve it, so it did not run");
  // The user sees them as tool calls.
  assert.deepEqual(
    events.flatMap((e) => (e.type === "tool.started" ? [e.input?.command] : [])),
    ["echo hello-from-shell", "touch NOT_ALLOWED"],
  );
});

test("files a command names with @path are read as it expands (through the gate) and put after its prompt", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Read(./secret.txt)"] } });
  await project.write("src/app.ts", "export const answer = 42;\n");
  await project.write("secret.txt", "hunter2\n");
  await project.write(".claude/commands/review.md", "Review @src/app.ts and @secret.txt, thanks to @alice, for $ARGUMENTS.");
  const { provider, events } = await runInProject(project, [{ text: "ok" }], { prompt: "/review correctness" });
  const sent = String(withoutCacheMarks(provider.requests[0].messages)[0].content);
  assert.match(sent, /^Review @src\/app\.ts and @secret\.txt, thanks to @alice, for correctness\.\n\nContents of src\/app\.ts:\n {5}1\texport const answer = 42;\n\n\(@secret\.txt was not read: .*deny rule.*\)$/s);
  assert.doesNotMatch(sent, /hunter2/);
  assert.deepEqual(
    events.flatMap((e) => (e.type === "tool.started" ? [e.toolName] : [])),
    ["Read", "Read"],
  );
  // The user's own prompt names files the same way; an address or a handle stays text.
  const plain = await runInProject(project, [{ text: "ok" }], { prompt: "what about @src/app.ts? ask me@example.com or @alice" });
  assert.equal(
    String(withoutCacheMarks(plain.provider.requests[0].messages)[0].content),
    "what about @src/app.ts? ask me@example.com or @alice\n\nContents of src/app.ts:\n     1\texport const answer = 42;",
  );
  assert.deepEqual(
    plain.events.flatMap((e) => (e.type === "tool.started" ? [e.toolName] : [])),
    ["Read"],
  );
});

test("a skill the model invokes runs its ! commands under its allowed-tools and reads the files it names, as /name does", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/ctx/SKILL.md", "---\ndescription: Gathers context\nallowed-tools: Bash(echo:*)\n---\nBranch: !`echo on-main`\nNotes: @notes.txt\nNot run: !`touch NOT_ALLOWED`");
  await project.write("notes.txt", "remember the flag\n");
  const { provider, events } = await runInProject(project, [
    // Two at once: each expansion's calls are told apart.
    { toolCalls: [{ id: "s1", name: "Skill", input: { skill: "ctx" } }, { id: "s2", name: "Skill", input: { skill: "ctx", args: "again" } }] },
    { text: "ok" },
  ]);
  const [first, second] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.match(String(first!.content), /\n\nBranch: on-main\nNotes: @notes\.txt\nNot run: \[`touch NOT_ALLOWED` failed: .*\]\n\nContents of notes\.txt:\n {5}1\tremember the flag$/s);
  assert.match(String(second!.content), /Branch: on-main\n.*ARGUMENTS: again/s);
  assert.equal(await project.exists("NOT_ALLOWED"), false);
  const nested = events.flatMap((e) => (e.type === "tool.started" && e.toolName !== "Skill" ? [e.toolUseId] : []));
  assert.equal(nested.length, 6);
  assert.equal(new Set(nested).size, 6);
});

test("the model may run a custom command that describes itself with the Skill tool, as in Claude Code; not one marked disable-model-invocation", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/release/notes.md", "---\ndescription: Drafts release notes\nallowed-tools: Bash(touch:*)\n---\nDraft the notes for $0: !`touch NOTES.md`");
  await project.write(".claude/commands/deploy.md", "---\ndescription: Deploys to production\ndisable-model-invocation: true\n---\nDeploy now.");
  await project.write(".claude/commands/plain.md", "Just a prompt.");
  const { provider, result } = await runInProject(project, [
    { toolCalls: [{ id: "s1", name: "Skill", input: { skill: "release:notes", args: "2.1" } }, { id: "s2", name: "Skill", input: { skill: "deploy" } }] },
    { text: "Drafted." },
  ]);
  assert.equal(result.stopReason, "end_turn");
  const listed = /<available-skills>\n([\s\S]*?)\n<\/available-skills>/.exec(systemText(provider.requests[0]))?.[1];
  assert.equal(listed, "- release:notes: Drafts release notes");
  const [notes, deploy] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(notes!.is_error, undefined);
  assert.equal(notes!.content, "Draft the notes for 2.1: (Command completed with no output)");
  assert.equal(await project.exists("NOTES.md"), true, "its allowed-tools hold");
  assert.deepEqual([deploy!.is_error, deploy!.content], [true, "The skill deploy can only be run by the user, who types /deploy."]);
  // Typed by the user, a command is still expanded from its own file.
  const typed = await runInProject(project, [{ text: "ok" }], { prompt: "/deploy" });
  assert.equal(String(withoutCacheMarks(typed.provider.requests[0].messages)[0].content), "Deploy now.");
});

test("an allowed-tools rule of a command or skill that does not parse is said, not silently dropped", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/mark.md", "---\nallowed-tools: Bash(touch:*\n---\nMark: !`touch MARKED`");
  await project.write(".claude/skills/tidy/SKILL.md", "---\ndescription: Tidies up\nallowed-tools: Read, Bash(rm:*\n---\nTidy.");
  const typed = await runInProject(project, [{ text: "ok" }], { prompt: "/mark" });
  const invoked = await runInProject(project, [{ toolCalls: [{ name: "Skill", input: { skill: "tidy" } }] }, { text: "ok" }]);
  const notices = [...typed.events, ...invoked.events].flatMap((e) => (e.type === "notice" ? [e.message] : []));
  assert.deepEqual(notices, [
    'The rule "Bash(touch:*" of the slash command\'s allowed-tools is left out: rule "Bash(touch:*" has no closing parenthesis',
    'The rule "Bash(rm:*" of the skill tidy\'s allowed-tools is left out: rule "Bash(rm:*" has no closing parenthesis',
  ]);
  assert.equal(await project.exists("MARKED"), false);
});

test("a backtick or line break in a command's arguments stays in its ! command, whole, and arguments never make a ! command of their own", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/say.md", "---\nallowed-tools: Bash(echo:*), Bash(touch:*)\n---\nSaid: !`echo '$ARGUMENTS'`");
  await project.write(".claude/commands/review.md", "---\nallowed-tools: Bash(echo:*), Bash(touch:*)\n---\nStatus: !`echo ok`\n!$ARGUMENTS");
  const said = await runInProject(project, [{ text: "ok" }], { prompt: "/say the `x` flag\nand more" });
  assert.equal(String(withoutCacheMarks(said.provider.requests[0].messages)[0].content), "Said: the `x` flag\nand more");

  const review = await runInProject(project, [{ text: "ok" }], { prompt: "/review `touch planted`" });
  assert.equal(await project.exists("planted"), false, "the argument did not run");
  assert.equal(String(withoutCacheMarks(review.provider.requests[0].messages)[0].content), "Status: ok\n!`touch planted`");
  assert.deepEqual(review.events.flatMap((e) => (e.type === "tool.started" ? [e.input?.command] : [])), ["echo ok"]);
});

test("a skill the model loads gets a backtick in its arguments whole in its ! command", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/say/SKILL.md", "---\nname: say\ndescription: Says it.\nallowed-tools: Bash(echo:*)\n---\nSaid: !`echo '$ARGUMENTS'`");
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_skill", name: "Skill", input: { skill: "say", args: "a `b` c" } }] }, { text: "ok" }]);
  const result = JSON.stringify(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.match(result, /Said: a `b` c/);
});

test("a command's arguments reach its ! command as typed: placeholders and private-use characters in them are left alone", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/say.md", "---\nallowed-tools: Bash(echo:*)\narguments: [first, second]\n---\nSaid: !`echo '$first|$second'` by $ARGUMENTS");
  const typed = "$second|${CLAUDE_SESSION_ID}|\uE000\uE001 two";
  const { provider, events } = await runInProject(project, [{ text: "ok" }], { prompt: `/say ${typed}` });
  assert.deepEqual(events.flatMap((e) => (e.type === "tool.started" ? [e.input?.command] : [])), ["echo '$second|${CLAUDE_SESSION_ID}|\uE000\uE001|two'"]);
  assert.equal(String(withoutCacheMarks(provider.requests[0].messages)[0].content), `Said: $second|\${CLAUDE_SESSION_ID}|\uE000\uE001|two by ${typed}`);
});
