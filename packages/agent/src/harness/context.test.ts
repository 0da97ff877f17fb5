import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContentBlock, ModelMessage, ToolResultBlock } from "@harness/llm";
import type { TranscriptEntry } from "../compaction/types.ts";
import { TEST_PNG_BASE64 } from "@harness/test-utils";
import { systemText, withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

function textOfMessage(message: ModelMessage | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

test("memory files and their imports open the first user message of every request, and stay out of the transcript", async (t) => {
  const project = await tempProject(t);
  await project.writeHome(".claude/CLAUDE.md", "Answer in British English.");
  await project.write("CLAUDE.md", "Use pnpm, never npm.\nSee @docs/style.md for the style guide.");
  await project.write("docs/style.md", "Two spaces of indentation.");
  await project.write("notes.txt", "n\n");
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "ok" }], { prompt: "Go" });

  for (const request of provider.requests) {
    const first = withoutCacheMarks(request.messages)[0];
    const [memory, prompt] = first.content as ContentBlock[];
    assert.ok(memory.type === "text" && memory.text.startsWith("<system-reminder>"));
    const text = memory.type === "text" ? memory.text : "";
    const order = ["Answer in British English.", "Use pnpm, never npm.", "Two spaces of indentation."].map((line) => text.indexOf(line));
    assert.ok(order.every((i) => i > 0), text);
    assert.deepEqual([...order].sort((a, b) => a - b), order, "user memory, then the project's, then what it imports");
    assert.deepEqual(prompt, { type: "text", text: "Go" });
  }
  assert.deepEqual(result.transcript[0], { role: "user", content: "Go" });
});

test("a CLAUDE.md in a subdirectory joins the conversation with the first tool result below it", async (t) => {
  const project = await tempProject(t);
  await project.write("api/CLAUDE.md", "Every handler validates its input with zod.");
  await project.write("api/handler.ts", "export {};\n");
  await project.write("api/routes.ts", "export {};\n");
  const { provider } = await runInProject(project, [
    { toolCalls: [{ id: "toolu_1", name: "Read", input: { file_path: "api/handler.ts" } }] },
    { toolCalls: [{ id: "toolu_2", name: "Read", input: { file_path: "api/routes.ts" } }] },
    { text: "ok" },
  ]);

  assert.doesNotMatch(JSON.stringify(provider.requests[0]), /validates its input/);
  const [first] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.match(String(first.content), /^ {5}1\texport \{\};\n\n<system-reminder>\n[\s\S]*Contents of .*api\/CLAUDE\.md[\s\S]*Every handler validates its input with zod\.[\s\S]*<\/system-reminder>$/);
  const [second] = resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1));
  assert.equal(second.content, "     1\texport {};", "the reminder comes once");
});

test("requests carry prompt-cache breakpoints: the last tool, the system blocks, the last message", async (t) => {
  const project = await tempProject(t);
  await project.write("CLAUDE.md", "Be terse.");
  const { provider } = await runInProject(project, [{ toolCalls: [{ name: "Glob", input: { pattern: "*.md" } }] }, { text: "ok" }]);

  for (const request of provider.requests) {
    const tools = request.tools ?? [];
    assert.deepEqual(tools.at(-1)?.cache_control, { type: "ephemeral" });
    assert.ok(tools.slice(0, -1).every((tool) => tool.cache_control === undefined));
    assert.ok(Array.isArray(request.system));
    assert.deepEqual(request.system.at(-1)?.cache_control, { type: "ephemeral" });
    const last = request.messages.at(-1)?.content;
    assert.ok(Array.isArray(last));
    assert.deepEqual((last.at(-1) as { cache_control?: unknown }).cache_control, { type: "ephemeral" });
    const marks = JSON.stringify(request).split('"cache_control"').length - 1;
    assert.ok(marks <= 4, `${marks} breakpoints`);
  }
  assert.equal(JSON.stringify(provider.requests[0].system), JSON.stringify(provider.requests[1].system), "the system prompt is the same bytes each turn");
});

test("a compacted history: the model sees the summary on, never `meta`, and the transcript keeps the record", async (t) => {
  const project = await tempProject(t);
  const history: TranscriptEntry[] = [
    { role: "user", content: "Old question" },
    { role: "assistant", content: [{ type: "text", text: "Old answer" }] },
    { role: "user", content: "Summary of the earlier work.", meta: { kind: "compact-summary", dropped: 2 } },
    { role: "assistant", content: [{ type: "text", text: "Understood." }] },
  ];
  const { provider, result } = await runInProject(project, [{ text: "Continuing." }], { prompt: "Next step", history });

  const sent = provider.requests[0].messages;
  assert.doesNotMatch(JSON.stringify(sent), /"meta"/);
  assert.doesNotMatch(JSON.stringify(sent), /Old question/);
  assert.deepEqual(withoutCacheMarks(sent).slice(0, 2), [
    { role: "user", content: "Summary of the earlier work." },
    { role: "assistant", content: "Understood." },
  ]);
  assert.deepEqual(result.transcript.slice(0, 4), history);
  assert.deepEqual(result.transcript.slice(4), [
    { role: "user", content: "Next step" },
    { role: "assistant", content: [{ type: "text", text: "Continuing." }] },
  ]);
});

test("usage is reported per model call with its cost, and summed for the run", async (t) => {
  const project = await tempProject(t);
  const { result } = await runInProject(
    project,
    [
      { toolCalls: [{ name: "Glob", input: { pattern: "*" } }], usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 2000 } },
      { text: "ok", usage: { inputTokens: 500, outputTokens: 50, cacheReadTokens: 3000, cacheWriteTokens: 100 } },
    ],
    { model: "claude-sonnet-4-6" },
  );

  assert.equal(result.model, "claude-sonnet-4-6");
  assert.equal(result.turns.length, 2);
  // Sonnet: $3 input, $15 output, $0.30 cache read, $3.75 cache write per million tokens.
  const expected = [(1000 * 3 + 100 * 15 + 2000 * 0.3) / 1e6, (500 * 3 + 50 * 15 + 3000 * 0.3 + 100 * 3.75) / 1e6];
  result.turns.forEach((turn, i) => assert.ok(Math.abs((turn.costUsd ?? -1) - expected[i]) < 1e-12, `turn ${i}: ${turn.costUsd}`));
  const { costUsd, ...tokens } = result.usage;
  assert.deepEqual(tokens, { inputTokens: 1500, outputTokens: 150, cacheReadTokens: 5000, cacheWriteTokens: 100 });
  assert.ok(Math.abs((costUsd ?? -1) - (expected[0] + expected[1])) < 1e-12);
});

test("the settings' env reaches Bash; broken settings become a notice and the rest still loads", async (t) => {
  const project = await tempProject(t);
  await project.settings({ env: { GREETING: "from settings" }, permissions: { allow: ["Bash(echo:*)", 42] } });
  await project.write(".claude/settings.local.json", "{ not json");
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ name: "Bash", input: { command: 'echo "$GREETING"' } }] }, { text: "ok" }]);

  const [block] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(block.content, "from settings");
  const notices = events.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? e.message : ""));
  assert.ok(notices.some((m) => /settings\.json \(permissions\.allow\[1\]\)/.test(m)), notices.join("\n"));
  assert.ok(notices.some((m) => /settings\.local\.json: /.test(m)), notices.join("\n"));
});

test("the system prompt: the default, the environment, and appendSystemPrompt; systemPrompt replaces only the default", async (t) => {
  const project = await tempProject(t);
  const first = await runInProject(project, [{ text: "ok" }], { appendSystemPrompt: "Always answer in haiku." });
  const system = systemText(first.provider.requests[0]);
  assert.match(system, /^You are an interactive coding agent/);
  assert.match(system, /Always answer in haiku\./);
  assert.match(system, new RegExp(`Working directory: ${project.root}`));
  assert.match(system, /You are powered by the model test-model\./);

  const replaced = await runInProject(project, [{ text: "ok" }], { systemPrompt: "You are a release bot." });
  const text = systemText(replaced.provider.requests[0]);
  assert.match(text, /^You are a release bot\./);
  assert.doesNotMatch(text, /interactive coding agent/);
  assert.match(text, /You are powered by the model test-model/);
  assert.equal(textOfMessage(replaced.provider.requests[0].messages[0]), "Please help.");
});

test("an image that Read loads reaches the model as an image block", async (t) => {
  const project = await tempProject(t);
  await project.write("pixel.png", Buffer.from(TEST_PNG_BASE64, "base64"));
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ id: "toolu_img", name: "Read", input: { file_path: "pixel.png" } }] }, { text: "A red pixel." }]);

  const [block] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.ok(Array.isArray(block.content), JSON.stringify(block.content).slice(0, 200));
  assert.deepEqual(block.content.find((b) => b.type === "image"), { type: "image", source: { type: "base64", media_type: "image/png", data: TEST_PNG_BASE64 } });
  const completed = events.find((e) => e.type === "tool.completed");
  assert.ok(completed?.type === "tool.completed" && !completed.output.includes(TEST_PNG_BASE64), "the event carries a summary, not the image data");
});

test("the system prompt and the built-in tools' definitions are Latin-1 text, so a request's JSON stays a one-byte string", async (t) => {
  // One character beyond U+00FF anywhere in a request makes V8 build its whole JSON (27 KB of tool
  // definitions and more) as a two-byte string: every model request then costs about twice as
  // long to serialize and encode.
  const project = await tempProject(t);
  const { provider } = await runInProject(project, [{ text: "ok" }], { prompt: "Go" });
  const [request] = provider.requests;
  for (const [part, value] of [
    ["system prompt", request.system],
    ["tool definitions", request.tools],
  ] as const) {
    const json = JSON.stringify(value);
    const beyond = /[^\x00-\xff]/.exec(json);
    assert.ok(beyond === null, `${part}: "${beyond?.[0]}" at …${json.slice(Math.max(0, (beyond?.index ?? 0) - 40), (beyond?.index ?? 0) + 10)}`);
  }
  assert.ok((request.tools?.length ?? 0) > 10, "the built-in tools are offered");
});

test("claudeMdExcludes in the settings keeps matching memory files out of the conversation, at the start and as the agent works below them", async (t) => {
  const project = await tempProject(t);
  await project.write("CLAUDE.md", "Root memory stays.");
  await project.write("legacy/CLAUDE.md", "Legacy rules nobody follows.");
  await project.write("legacy/old.ts", "export {};\n");
  await project.write("api/CLAUDE.md", "API memory stays.");
  await project.write("api/new.ts", "export {};\n");
  await project.settings({ claudeMdExcludes: ["**/legacy/**"] }, "local");
  const { provider } = await runInProject(project, [
    { toolCalls: [{ id: "toolu_1", name: "Read", input: { file_path: "legacy/old.ts" } }, { id: "toolu_2", name: "Read", input: { file_path: "api/new.ts" } }] },
    { text: "ok" },
  ]);
  const sent = JSON.stringify(provider.requests.map((r) => r.messages));
  assert.match(sent, /Root memory stays/);
  assert.match(sent, /API memory stays/);
  assert.doesNotMatch(sent, /Legacy rules/);
});
