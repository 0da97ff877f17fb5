// `harness run --output-format stream-json --include-partial-messages`: the model's streaming events
// as Claude Code passes them on (`stream_event`), so that a program can show the reply as it comes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

type Line = { type: string; event?: { type: string; index?: number; delta?: Record<string, unknown>; content_block?: Record<string, unknown> }; [key: string]: unknown };
const linesOf = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Line);

test("--include-partial-messages: the reply streams as the API's events, before the whole message", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: ["Let me ", "look."], toolUses: [{ name: "Bash", input: { command: "echo hi" } }] }, { text: ["It ", "printed ", "hi."] }] }));
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--include-partial-messages", "say hi"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 0, stderr);
  const lines = linesOf(stdout);
  const events = lines.filter((line) => line.type === "stream_event");
  assert.ok(events.every((line) => line.session_id === lines[0]!.session_id && line.parent_tool_use_id === null), "each in Claude Code's envelope");
  const kinds = events.map((line) => line.event!.type);
  assert.deepEqual(kinds.filter((kind) => kind === "message_start" || kind === "message_stop"), ["message_start", "message_stop", "message_start", "message_stop"], "one message per model call");
  const texts = events.filter((line) => line.event!.delta?.type === "text_delta").map((line) => line.event!.delta!.text);
  assert.deepEqual(texts, ["Let me ", "look.", "It ", "printed ", "hi."]);
  const toolStart = events.find((line) => line.event!.type === "content_block_start" && line.event!.content_block?.type === "tool_use");
  assert.equal(toolStart?.event!.content_block?.name, "Bash");
  const json = events.filter((line) => line.event!.delta?.type === "input_json_delta").map((line) => line.event!.delta!.partial_json).join("");
  assert.deepEqual(JSON.parse(json), { command: "echo hi" });
  const stops = events.filter((line) => line.event!.type === "message_delta").map((line) => (line.event!.delta as { stop_reason: string }).stop_reason);
  assert.deepEqual(stops, ["tool_use", "end_turn"]);
  const firstText = lines.findIndex((line) => line.event?.delta?.type === "text_delta");
  const wholeReply = lines.findIndex((line) => line.type === "assistant" && JSON.stringify(line).includes("It printed hi."));
  const lastDelta = lines.findLastIndex((line) => line.event?.delta?.type === "text_delta");
  assert.ok(firstText >= 0 && lastDelta < wholeReply, "the parts come before the whole");
  assert.equal(lines.at(-1)!.type, "result");
});

test("without --include-partial-messages there are no stream events; the flag needs stream-json output", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: ["Hi ", "there."] }] }));
  const dir = tempDir(t);
  const { code, stdout } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "stream-json", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0);
  assert.ok(!linesOf(stdout).some((line) => line.type === "stream_event"));
  assert.deepEqual(parseArgs(["run", "--include-partial-messages", "hi"]), { kind: "usage-error", message: "--include-partial-messages needs --output-format stream-json", topic: "run" });
  const command = parseArgs(["run", "--output-format", "stream-json", "--include-partial-messages", "hi"]);
  assert.equal(command.kind === "run" && command.includePartialMessages, true);
});
