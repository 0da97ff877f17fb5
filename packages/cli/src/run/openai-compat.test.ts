// `harness run` with a local model (ollama/…) whose server streams as the OpenAI-compatible ones
// do, each with its own quirks: what the user sees, and what goes back to the server.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type FakeOpenAIOptions, startFakeOpenAI } from "@harness/test-utils";
import { harness, tempDir } from "../test-support.ts";

async function run(t: test.TestContext, options: FakeOpenAIOptions, prompt = "look") {
  const fake = await startFakeOpenAI(options);
  t.after(() => fake.close());
  const dir = tempDir(t);
  writeFileSync(join(dir, "a.txt"), "alpha\n");
  writeFileSync(join(dir, "b.txt"), "beta\n");
  const result = await harness(["run", "--cwd", dir, "--model", "ollama/qwen3:8b", "--permission-mode", "acceptEdits", prompt], { ANTHROPIC_API_KEY: "", OLLAMA_BASE_URL: fake.url }).result;
  return { ...result, fake, dir };
}

type Sent = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string } }[]; tool_call_id?: string };

test("tool calls sent without ids, whole in one chunk, with finish_reason stop, run; the ids made up for them go back with their results", async (t) => {
  const calls = ["a.txt", "b.txt"].map((name) => ({ id: null, inline: true, name: "Read", arguments: { file_path: name } }));
  const { code, stdout, stderr, fake } = await run(t, { replies: [{ toolCalls: calls, finishReason: "stop" }, { text: "Both read." }] });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Both read.\n");
  const sent = fake.requests[1].body.messages as Sent[];
  const ids = sent.find((m) => m.tool_calls)?.tool_calls?.map((c) => c.id) ?? [];
  assert.equal(ids.length, 2);
  assert.ok(ids.every((id) => /^call_\w+$/.test(id)) && ids[0] !== ids[1], `made-up ids are unique: ${ids}`);
  const results = sent.filter((m) => m.role === "tool");
  assert.deepEqual(results.map((m) => m.tool_call_id), ids);
  assert.match(String(results[0].content), /alpha/);
  assert.match(String(results[1].content), /beta/);
});

test("arguments that are not JSON give the tool an error result naming the problem, and the run goes on", async (t) => {
  const bad = { name: "Read", arguments: {}, argumentsJson: '{"file_path": "a.txt"' };
  const { code, stdout, stderr, fake } = await run(t, { replies: [{ toolCalls: [bad] }, { text: "I will try again." }] });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "I will try again.\n");
  const result = (fake.requests[1].body.messages as Sent[]).find((m) => m.role === "tool");
  assert.match(String(result?.content), /^Error: The input of this Read call was not a valid JSON object/);
});

test("reasoning, in a field or in <think> tags, is not printed as the reply", async (t) => {
  const { code, stdout, stderr } = await run(t, { replies: [{ reasoning: "Count: 2 and 2.", text: ["<think>\nhm", "m</think>\n\n", "It is 4."] }] });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "It is 4.\n");
});

test("reasoning the chat template opened, ended by </think> alone, is not printed as the reply, nor given as its text in stream-json", async (t) => {
  const reply = { text: ["Two and", " two.\n", "</think>\n\n", "It is 4."] };
  const { code, stdout, stderr } = await run(t, { replies: [reply] });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "It is 4.\n");
  const fake = await startFakeOpenAI({ replies: [reply] });
  t.after(() => fake.close());
  const streamed = await harness(["run", "--cwd", tempDir(t), "--model", "ollama/qwen3:8b", "--output-format", "stream-json", "--verbose", "add"], { ANTHROPIC_API_KEY: "", OLLAMA_BASE_URL: fake.url }).result;
  assert.equal(streamed.code, 0, streamed.stderr);
  const lines = streamed.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; message?: { content: { type: string; text?: string }[] }; result?: string });
  const texts = lines.filter((line) => line.type === "assistant").flatMap((line) => line.message!.content.filter((block) => block.type === "text").map((block) => block.text));
  assert.deepEqual(texts, ["It is 4."]);
  assert.equal(lines.at(-1)?.result, "It is 4.");
});

test("a server that refuses stream_options and never reports usage still answers", async (t) => {
  const { code, stdout, stderr, fake } = await run(t, { quirks: { rejectsStreamOptions: true, noUsage: true }, replies: [{ text: "Fine." }] });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Fine.\n");
  assert.equal(stderr, "");
  assert.equal(fake.requests.length, 2);
});

test("a model that takes no tools: the run fails at once, naming the model and what to do", async (t) => {
  const { code, stdout, stderr, fake } = await run(t, { replies: [{ kind: "http-error", status: 400, errorType: "api_error", code: null, message: "registry.ollama.ai/library/qwen3:8b does not support tools" }] });
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, 'harness: Ollama API error 400 (api_error): registry.ollama.ai/library/qwen3:8b does not support tools — the model "qwen3:8b" cannot be given tools, which the agent needs: choose a model that supports tool calling\n');
  assert.equal(fake.requests.length, 1);
});
