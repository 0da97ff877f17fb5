// A session on a local model (ollama/…) whose server has the quirks of the OpenAI-compatible
// ones, through harness serve: what a client sees of the reply, its tool calls, usage and errors.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIOptions, MinimalClient, startFakeOpenAI, startHarnessServer } from "@harness/test-utils";

async function session(t: TestContext, options: FakeOpenAIOptions) {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-compat-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const fake = await startFakeOpenAI(options);
  t.after(() => fake.close());
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "", OLLAMA_BASE_URL: fake.url, HARNESS_MODEL: "ollama/qwen3:8b", HARNESS_MODEL_RETRIES: "0" } });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "local", sessionId: "one" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "submit", prompt: "what is in the notes?" });
  await client.waitForState((s) => s.status !== "running" && s.messages[1] !== undefined && s.messages[1].status !== "running", 30_000, "the run to end");
  return { fake, state: client.state! };
}

test("a reply with thinking in <think> tags, a tool call without an id and no usage: the client sees the thinking apart, the answer, the call, and usage not known", async (t) => {
  const { fake, state } = await session(t, {
    quirks: { rejectsStreamOptions: true, noUsage: true },
    replies: [
      { text: "<think>I should list the files.</think>", toolCalls: [{ id: null, inline: true, name: "Bash", arguments: { command: "echo notes", description: "list" } }], finishReason: "stop" },
      { text: "<think>Done looking.</think>\n\nThe notes say notes." },
    ],
  });
  const reply = state.messages[1];
  assert.equal(reply.status, "complete", JSON.stringify(state.error));
  assert.equal(reply.content, "The notes say notes.");
  assert.equal((reply as { thinking?: string }).thinking, "I should list the files.\n\nDone looking.", "each call's thinking, a paragraph apiece");
  assert.equal(reply.toolCalls?.[0]?.status, "complete");
  assert.match(reply.toolCalls?.[0]?.output ?? "", /notes/);
  assert.equal((state.spent as { usage?: { unreportedCalls?: number } } | undefined)?.usage?.unreportedCalls, 2, JSON.stringify(state.spent));
  assert.equal(fake.requests.length, 3, "one request was refused for its stream_options, and asked again without");
});

test("a reply whose thinking the chat template opened ends it with </think> alone: the client sees the text before it as thinking, and the answer after it", async (t) => {
  const { state } = await session(t, {
    replies: [
      { text: ["Let me see", " what the notes hold.\n", "</th", "ink>\n\n"], toolCalls: [{ name: "Bash", arguments: { command: "echo notes", description: "list" } }] },
      { text: ["They hold notes.\n</th", "ink>\n\n", "The notes say ", "notes."] },
    ],
  });
  const reply = state.messages[1];
  assert.equal(reply.status, "complete", JSON.stringify(state.error));
  assert.equal(reply.content, "The notes say notes.");
  assert.equal((reply.toolCalls?.[0] as { textOffset?: number } | undefined)?.textOffset, 0, "the call comes before the answer, with no text before it");
  assert.equal((reply as { thinking?: string }).thinking, "Let me see what the notes hold.\nThey hold notes.\n");
});

test("a model that takes no tools: the session's error says so, naming the model", async (t) => {
  const { state } = await session(t, { replies: [{ kind: "http-error", status: 400, errorType: "api_error", code: null, message: "registry.ollama.ai/library/qwen3:8b does not support tools" }] });
  assert.equal(state.status, "error");
  assert.match(state.error ?? "", /does not support tools — the model "qwen3:8b" cannot be given tools, which the agent needs: choose a model that supports tool calling/);
});
