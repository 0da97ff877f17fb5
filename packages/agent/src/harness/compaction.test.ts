import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage } from "@harness/llm";
import type { TranscriptEntry } from "../compaction/types.ts";
import { assertValidTranscript, withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";

function conversation(turns: number, filler = ""): TranscriptEntry[] {
  return Array.from({ length: turns }, (_, i): TranscriptEntry[] => [
    { role: "user", content: `Question ${i + 1}${filler}` },
    { role: "assistant", content: [{ type: "text", text: `Answer ${i + 1}` }] },
  ]).flat();
}

const hasTools = (request: { tools?: unknown[] }) => (request.tools?.length ?? 0) > 0;

test("when a request nears the context window the conversation is compacted before the next model call", async (t) => {
  const project = await tempProject(t);
  const pre = await project.hook("pre.sh", `cat >> "$CLAUDE_PROJECT_DIR/pre-compact.log"; echo >> "$CLAUDE_PROJECT_DIR/pre-compact.log"`);
  await project.settings({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: pre }] }] } });
  const history = conversation(3);
  const { provider, result, events } = await runInProject(
    project,
    [
      // 170k of Sonnet's 200k window: past the 80% threshold.
      { toolCalls: [{ id: "toolu_glob", name: "Glob", input: { pattern: "*" } }], usage: { inputTokens: 20_000, outputTokens: 50, cacheReadTokens: 150_000 } },
      { text: "<summary>Three questions answered; now listing files.</summary>", usage: { inputTokens: 4000, outputTokens: 200 } },
      { text: "Here are the files.", usage: { inputTokens: 3000, outputTokens: 20 } },
    ],
    { model: "claude-sonnet-4-6", history, prompt: "List the files" },
  );

  assert.equal(result.stopReason, "end_turn");
  assert.equal(provider.requests.length, 3);
  const [, summary, after] = provider.requests;
  assert.ok(!hasTools(summary), "the summary request has no tools");
  assert.match(JSON.stringify(summary.messages), /Question 1/);
  const sent = withoutCacheMarks(after.messages);
  assert.match(JSON.stringify(sent[0]), /This session is being continued from a previous conversation/);
  assert.match(JSON.stringify(sent[0]), /Three questions answered/);
  assert.doesNotMatch(JSON.stringify(sent), /Question 1"/);
  assert.doesNotMatch(JSON.stringify(after.messages), /"meta"/);
  assert.match(JSON.stringify(sent.at(-1)), /toolu_glob/, "the pending tool result is still the last message");
  assertValidTranscript(sent);

  const summaryAt = result.transcript.findIndex((m) => m.meta?.kind === "compact-summary");
  assert.ok(summaryAt > 0);
  assert.deepEqual(result.transcript.slice(0, 2), history.slice(0, 2), "the record keeps what was summarized");
  assert.deepEqual(result.transcript.at(-1), { role: "assistant", content: [{ type: "text", text: "Here are the files." }] });
  assert.equal(result.turns.length, 3);
  assert.deepEqual(result.usage, { inputTokens: 27_000, outputTokens: 270, cacheReadTokens: 150_000, costUsd: result.usage.costUsd });
  assert.ok(events.some((e) => e.type === "notice" && e.level === "info" && /compacted/.test(e.message)));
  assert.match(await project.read("pre-compact.log"), /"trigger":"auto"/);
});

test("a long history is compacted before the run's first call, from an estimate of its size", async (t) => {
  const project = await tempProject(t);
  const history = conversation(4, ` ${"detail ".repeat(400)}`);
  const { provider, result } = await runInProject(project, [{ text: "<summary>Four long questions.</summary>" }, { text: "Answer 5" }], {
    history,
    prompt: "Question 5",
    env: { ...process.env, HARNESS_CONTEXT_WINDOW: "3000" },
  });

  assert.equal(result.stopReason, "end_turn");
  assert.ok(!hasTools(provider.requests[0]), "the first request is the summary");
  const sent: ModelMessage[] = withoutCacheMarks(provider.requests[1].messages);
  assert.match(JSON.stringify(sent[0]), /Four long questions/);
  assert.match(JSON.stringify(sent.at(-1)), /Question 5/);
});

test("a failed compaction is a warning, and the run goes on with the conversation as it was", async (t) => {
  const project = await tempProject(t);
  const history = conversation(3);
  const { provider, result, events } = await runInProject(
    project,
    [
      { toolCalls: [{ name: "Glob", input: { pattern: "*" } }], usage: { inputTokens: 190_000, outputTokens: 5 } },
      { error: "overloaded" },
      { toolCalls: [{ name: "Glob", input: { pattern: "*" } }], usage: { inputTokens: 195_000, outputTokens: 5 } },
      { text: "Done anyway." },
    ],
    { model: "claude-sonnet-4-6", history },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.equal(provider.requests.length, 4, "compaction is not tried again in the same run");
  assert.ok(events.some((e) => e.type === "notice" && e.level === "warning" && /could not be compacted: The summary request failed: overloaded/.test(e.message)));
  assert.ok(result.transcript.every((m) => m.meta === undefined));
  assert.deepEqual(result.transcript.slice(0, 6), history);
});

test("what was added since the last request counts too: large tool results bring the compaction on before the request that would overflow", async (t) => {
  const project = await tempProject(t);
  const reads = Array.from({ length: 10 }, (_, i) => ({ id: `toolu_read${i}`, name: "Read", input: { file_path: `big${i}.txt` } }));
  for (let i = 0; i < 10; i++) await project.write(`big${i}.txt`, `${"x".repeat(99)}\n`.repeat(300));
  const { provider } = await runInProject(
    project,
    [
      // 120k of a 200k window: under the 80% threshold. The reads then add about 75k (by estimate).
      { toolCalls: reads, usage: { inputTokens: 10_000, outputTokens: 50, cacheReadTokens: 110_000 } },
      { text: "<summary>Read big.txt.</summary>", usage: { inputTokens: 4000, outputTokens: 20 } },
      { text: "Done.", usage: { inputTokens: 3000, outputTokens: 5 } },
    ],
    { model: "claude-sonnet-4-6", history: conversation(3), prompt: "Read big.txt", permissionMode: "bypassPermissions" },
  );
  assert.equal(provider.requests.length, 3);
  assert.ok(!hasTools(provider.requests[1]!), "the second request is the summary");
});

test("a server that reports no usage leaves the context's size to the estimate, so the conversation is still compacted in time", async (t) => {
  const project = await tempProject(t);
  await project.write("big.txt", `${"x".repeat(99)}\n`.repeat(800));
  const unreported = { inputTokens: 0, outputTokens: 0, unreportedCalls: 1 };
  const { provider } = await runInProject(
    project,
    [
      // The history and the file read, by estimate, are past 80% of a 50k window; the history alone is not.
      { toolCalls: [{ name: "Read", input: { file_path: "big.txt" } }], usage: unreported },
      { text: "<summary>Read big.txt.</summary>", usage: unreported },
      { text: "Done.", usage: unreported },
    ],
    { model: "ollama/qwen3:8b", history: conversation(6, ` ${"detail ".repeat(2800)}`), prompt: "Read big.txt", permissionMode: "bypassPermissions", env: { ...process.env, HARNESS_CONTEXT_WINDOW: "50000" } },
  );
  assert.equal(provider.requests.length, 3);
  assert.ok(hasTools(provider.requests[0]!), "the history alone did not call for a compaction");
  assert.ok(!hasTools(provider.requests[1]!), "the second request is the summary");
});

test("the summary asks for no more output than the model's window leaves after its input", async (t) => {
  const project = await tempProject(t);
  const { provider } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_glob", name: "Glob", input: { pattern: "*" } }], usage: { inputTokens: 30_000, outputTokens: 5 } },
      { text: "<summary>short</summary>", usage: { inputTokens: 1000, outputTokens: 5 } },
      { text: "after", usage: { inputTokens: 1000, outputTokens: 5 } },
    ],
    { model: "claude-sonnet-4-6", history: conversation(3, " ".padEnd(60_000, "y")), prompt: "go", env: { HARNESS_CONTEXT_WINDOW: "32768" } },
  );
  const summary = provider.requests.find((r) => !hasTools(r))!;
  assert.ok(summary, "a summary was asked for");
  assert.ok(summary.maxTokens! < 20_000 && summary.maxTokens! >= 1024, `maxTokens ${summary.maxTokens}`);
});

test("the task list is given back with the summary, so a task in progress goes on from it", async (t) => {
  const project = await tempProject(t);
  const todos = [
    { content: "Write the parser", status: "completed", activeForm: "Writing the parser" },
    { content: "Test the parser", status: "in_progress", activeForm: "Testing the parser" },
  ];
  const { provider } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_todo", name: "TodoWrite", input: { todos } }], usage: { inputTokens: 20_000, outputTokens: 50, cacheReadTokens: 150_000 } },
      { text: "<summary>Parser written; testing it.</summary>", usage: { inputTokens: 4000, outputTokens: 20 } },
      { text: "Testing.", usage: { inputTokens: 3000, outputTokens: 5 } },
    ],
    { model: "claude-sonnet-4-6", history: conversation(3), prompt: "Go on" },
  );
  const after = JSON.stringify(withoutCacheMarks(provider.requests[2]!.messages)[0]);
  assert.match(after, /The task list \(TodoWrite\) as it stands:\\n- \[completed\] Write the parser\\n- \[in_progress\] Test the parser/);
});

test("the files worked with last come back after a compaction, as they are now, newest first", async (t) => {
  const project = await tempProject(t);
  for (let i = 1; i <= 7; i++) await project.write(`f${i}.txt`, `file ${i} line one\nfile ${i} line two\n`);
  await project.write("big.txt", `${"x".repeat(100)}\n`.repeat(400));
  await project.write("blob.bin", Buffer.from([1, 0, 2]));
  const reads = ["f1", "f2", "f3", "f4", "f5", "f6", "f7"].map((name, i) => ({ id: `toolu_r${i}`, name: "Read", input: { file_path: `${name}.txt` } }));
  const { provider, result } = await runInProject(
    project,
    [
      // Calls of one reply run at once: one reply each where the order matters.
      { toolCalls: reads.slice(0, 3), usage: { inputTokens: 1000, outputTokens: 10 } },
      { toolCalls: [reads[3]!], usage: { inputTokens: 1000, outputTokens: 10 } },
      { toolCalls: [reads[4]!], usage: { inputTokens: 1000, outputTokens: 10 } },
      { toolCalls: [reads[5]!], usage: { inputTokens: 1000, outputTokens: 10 } },
      { toolCalls: [{ id: "toolu_big", name: "Read", input: { file_path: "big.txt" } }, { id: "toolu_bin", name: "Read", input: { file_path: "blob.bin" } }], usage: { inputTokens: 1000, outputTokens: 10 } },
      // f2 is read again last, and f4 changes after it was read: f2 is the newest, f4 comes back as it is now.
      { toolCalls: [{ id: "toolu_again", name: "Read", input: { file_path: "f2.txt" } }, { id: "toolu_sed", name: "Bash", input: { command: "echo changed > f4.txt" } }], usage: { inputTokens: 20_000, outputTokens: 50, cacheReadTokens: 150_000 } },
      { text: "<summary>Reading files.</summary>", usage: { inputTokens: 4000, outputTokens: 200 } },
      { text: "Done.", usage: { inputTokens: 3000, outputTokens: 20 } },
    ],
    { model: "claude-sonnet-4-6", prompt: "Read them", permissionMode: "bypassPermissions" },
  );
  assert.equal(result.stopReason, "end_turn");
  const texts = provider.requests.at(-1)!.messages.flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => (b.type === "text" ? [b.text] : []))));
  const reminder = texts.find((text) => text.includes("These are the files worked with most recently")) ?? "";
  const shown = [...reminder.matchAll(/Contents of (\S+), as it is now/g)].map((m) => m[1]);
  assert.deepEqual(shown, ["f2.txt", "big.txt", "f6.txt", "f5.txt", "f4.txt"], "the five worked with last, newest first; the binary file left out");
  assert.match(reminder, /     1\tfile 2 line one\n     2\tfile 2 line two/);
  assert.match(reminder, /Contents of f4.txt, as it is now:\n     1\tchanged/);
  assert.match(reminder, /The rest of big\.txt is not shown/);
  assert.ok(reminder.length < 60_000);
});
