import assert from "node:assert/strict";
import { test } from "node:test";
import type { TranscriptEntry } from "../compaction/types.ts";
import { runInProject, tempProject } from "../testing/project.ts";

function conversation(turns: number): TranscriptEntry[] {
  return Array.from({ length: turns }, (_, i): TranscriptEntry[] => [
    { role: "user", content: `Question ${i + 1}` },
    { role: "assistant", content: [{ type: "text", text: `Answer ${i + 1}` }] },
  ]).flat();
}

const hasTools = (request: { tools?: unknown[] }) => (request.tools?.length ?? 0) > 0;
const glob = { toolCalls: [{ name: "Glob", input: { pattern: "*" } }] };

test("autoCompactEnabled: false in the settings: past the threshold the conversation goes on uncompacted", async (t) => {
  const project = await tempProject(t);
  await project.settings({ autoCompactEnabled: false });
  const { provider, result, events } = await runInProject(
    project,
    // 170k of Sonnet's 200k window: past the 80% threshold, short of the limit.
    [{ ...glob, usage: { inputTokens: 20_000, outputTokens: 50, cacheReadTokens: 150_000 } }, { text: "Done." }],
    { model: "claude-sonnet-4-6", history: conversation(3), prompt: "List the files" },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.equal(provider.requests.length, 2);
  assert.ok(provider.requests.every(hasTools), "no summary request");
  assert.ok(!events.some((e) => e.type === "notice" && /compacted/.test(e.message)));
  assert.ok(result.transcript.every((m) => m.meta === undefined));
});

test("DISABLE_AUTO_COMPACT: at the context limit the run stops before the request, saying to run /compact", async (t) => {
  const project = await tempProject(t);
  const { provider, result } = await runInProject(project, [{ ...glob, usage: { inputTokens: 190_000, outputTokens: 5 } }, { text: "never sent" }], {
    model: "claude-sonnet-4-6",
    history: conversation(3),
    env: { ...process.env, DISABLE_AUTO_COMPACT: "1" },
  });
  assert.equal(provider.requests.length, 1, "the request that would overflow is not sent, and nothing is summarized");
  assert.equal(result.stopReason, "error");
  assert.match(result.errorMessage ?? "", /Context limit reached.*200,000-token context window.*automatic compaction is off.*\/compact/);
});

test("the settings' env may turn automatic compaction off too", async (t) => {
  const project = await tempProject(t);
  await project.settings({ env: { DISABLE_AUTO_COMPACT: "true" } }, "user");
  const { provider } = await runInProject(project, [{ ...glob, usage: { inputTokens: 170_000, outputTokens: 5 } }, { text: "Done." }], {
    model: "claude-sonnet-4-6",
    history: conversation(3),
  });
  assert.ok(provider.requests.every(hasTools), "no summary request");
});

test("with automatic compaction off, /compact still summarizes", async (t) => {
  const project = await tempProject(t);
  await project.settings({ autoCompactEnabled: false });
  const { provider, result } = await runInProject(project, [{ text: "<summary>Four questions.</summary>" }], { prompt: "/compact", history: conversation(4) });
  assert.equal(provider.requests.length, 1);
  assert.equal(result.stopReason, "end_turn");
  assert.ok(result.transcript.some((m) => m.meta?.kind === "compact-summary"));
});

test("/context says automatic compaction is off, and where the run will stop", async (t) => {
  const project = await tempProject(t);
  await project.settings({ autoCompactEnabled: false });
  const { result } = await runInProject(project, [], { prompt: "/context", model: "claude-sonnet-4-6" });
  assert.match(result.result, /Automatic compaction is off: the run stops at 177k tokens; \/compact summarizes the conversation\./);
  assert.doesNotMatch(result.result, /compacted automatically/);
});
