// `harness run --output-format stream-json`: each of the main agent's replies is an `assistant` line
// as soon as the model's reply is complete, as Claude Code sends it, so that what the end of a turn
// brings (the Stop hooks, their lines with --include-hook-events, a turn more that a Stop hook asks
// for) comes after the reply it follows, and the result last.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { query, type HookCallback } from "@anthropic-ai/claude-agent-sdk";
import { startFakeAnthropic } from "@harness/test-utils";
import { allMessages, sdkOptions } from "../agent-sdk/test-support.ts";
import { harness, streamLinesOf, tempDir, withFake } from "../../test-support.ts";

/** A project whose Stop hook runs `command`. */
function project(t: { after(fn: () => unknown): void }, command: string): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } }));
  return dir;
}

/** The lines that say the order: each reply's text, each Stop hook line, the result. */
function order(stdout: string): string[] {
  return streamLinesOf(stdout).flatMap((line) => {
    if (line.type === "assistant") return line.message.content.map((block: { type: string; text?: string }) => `assistant ${block.text ?? block.type}`);
    if (line.type === "system" && line.hook_event === "Stop") return [`${line.subtype}`];
    if (line.type === "result") return ["result"];
    return [];
  });
}

const run = (dir: string, url: string, extra: string[] = []) =>
  harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "stream-json", "--verbose", "--include-hook-events", ...extra, "go"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: url,
    HOME: dir,
  }).result;

test("the reply's assistant line comes before the Stop hook's lines, and the result last", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: ["All ", "done."] }] }));
  const dir = project(t, "touch stop-ran");
  const { code, stdout, stderr } = await run(dir, fake.url);
  assert.equal(code, 0, stderr);
  assert.ok(existsSync(join(dir, "stop-ran")), "the Stop hook ran");
  assert.deepEqual(order(stdout), ["assistant All done.", "hook_started", "hook_response", "result"], stdout);
});

test("a Stop hook that blocks once: two replies, each an assistant line before the Stop hook lines that follow it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First." }, { text: "Second." }] }));
  const once = `if [ -e blocked ]; then exit 0; fi; touch blocked; echo '{"decision":"block","reason":"Say one thing more."}'`;
  const dir = project(t, once);
  const { code, stdout, stderr } = await run(dir, fake.url);
  assert.equal(code, 0, stderr);
  assert.equal(fake.requests.length, 2, "the model was asked again");
  assert.deepEqual(order(stdout), ["assistant First.", "hook_started", "hook_response", "assistant Second.", "hook_started", "hook_response", "result"], stdout);
});

test("with --include-partial-messages the whole reply follows its last delta and comes before its block's and message's stop, as Claude Code's", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: ["Hi ", "there."] }] }));
  const dir = project(t, "true");
  const { code, stdout, stderr } = await run(dir, fake.url, ["--include-partial-messages"]);
  assert.equal(code, 0, stderr);
  // Claude Code's kinds of line only: the runner protocol's events (assistant.delta…) are beside them.
  const claudeLines = streamLinesOf(stdout).filter((line) => !line.type.includes("."));
  const kinds = claudeLines.map((line) => (line.type === "stream_event" ? line.event.type : line.type === "system" ? line.subtype : line.type));
  assert.deepEqual(
    kinds.slice(kinds.indexOf("message_start")),
    ["message_start", "content_block_start", "content_block_delta", "content_block_delta", "assistant", "content_block_stop", "message_delta", "message_stop", "hook_started", "hook_response", "result"],
    stdout,
  );
});

test("Agent SDK: a Stop hook callback that blocks once, with includeHookEvents: each reply's message before the hook messages that follow it, the result last", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First." }, { text: "Second." }] }));
  const dir = tempDir(t);
  let stops = 0;
  const stop: HookCallback = async () => (++stops === 1 ? { decision: "block", reason: "Say one thing more." } : {});
  const messages = await allMessages(query({ prompt: "go", options: sdkOptions(dir, fake.url, { includeHookEvents: true, hooks: { Stop: [{ hooks: [stop] }] } }) }));
  const seen = messages.flatMap((message) => {
    if (message.type === "assistant") return message.message.content.map((block) => `assistant ${block.type === "text" ? block.text : block.type}`);
    if (message.type === "system" && (message.subtype === "hook_started" || message.subtype === "hook_response") && message.hook_event === "Stop") return [message.subtype];
    if (message.type === "result") return [`result ${message.subtype}`];
    return [];
  });
  assert.deepEqual(seen, ["assistant First.", "hook_started", "hook_response", "assistant Second.", "hook_started", "hook_response", "result success"]);
});
