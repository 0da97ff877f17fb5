// The model's thinking, through the real Claude Code binary driven by the fake model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { claudeCodeBackend } from "./claude-code.ts";
import { drivenContext, fakeForClaudeCode, NO_CLAUDE_CODE, runnerEnvFor, tempDirs, textOf } from "./test-support.ts";

test("Claude Code's thinking streams as thinking events before the reply, never as its text", { skip: NO_CLAUDE_CODE, timeout: 60_000 }, async (t) => {
  const fake = await fakeForClaudeCode(t, { replies: [{ thinking: ["The user ", "wants a greeting."], text: ["Hello", "!"] }] });
  const run = drivenContext(tempDirs(t));
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "say hello" }, run.ctx);

  assert.ok(outcome.ok, JSON.stringify(outcome));
  const thinking = run.events.filter((e) => e.type === "assistant.thinking");
  assert.equal(thinking.map((e) => e.text).join(""), "The user wants a greeting.");
  assert.equal(thinking.length, 2, "one event per streamed delta");
  assert.equal(textOf(run.events), "Hello!");
  const firstText = run.events.findIndex((e) => e.type === "assistant.delta");
  assert.ok(run.events.indexOf(thinking[1]) < firstText, "the thinking comes before the reply");
});
