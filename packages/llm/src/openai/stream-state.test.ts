// Chunk folding for servers whose streams differ from OpenAI's own: no tool-call index, arguments
// before the name, refusals, a call without a name.
import assert from "node:assert/strict";
import { test } from "node:test";
import type OpenAI from "openai";
import { applyChunk, createOpenAIStreamState, openAIAssistantMessage, openAIStopReason, type OpenAIStreamState } from "./stream-state.ts";
import type { ModelEvent } from "../types.ts";

type Delta = Record<string, unknown>;

function chunk(delta: Delta, finishReason: string | null = null): OpenAI.Chat.Completions.ChatCompletionChunk {
  return { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finishReason }] } as OpenAI.Chat.Completions.ChatCompletionChunk;
}

function feed(state: OpenAIStreamState, ...chunks: OpenAI.Chat.Completions.ChatCompletionChunk[]): ModelEvent[] {
  return chunks.flatMap((c) => {
    const out = applyChunk(state, c);
    return out === undefined ? [] : Array.isArray(out) ? out : [out];
  });
}

test("tool calls without an index: an id or name starts a call, bare arguments continue it", () => {
  const state = createOpenAIStreamState();
  const events = feed(
    state,
    chunk({ tool_calls: [{ id: "a", function: { name: "glob", arguments: '{"p":' } }] }),
    chunk({ tool_calls: [{ function: { arguments: "1}" } }] }),
    chunk({ tool_calls: [{ id: "b", function: { name: "grep", arguments: "{}" } }, { id: "c", function: { name: "ls", arguments: "" } }] }),
    chunk({}, "tool_calls"),
  );
  assert.deepEqual(
    events.filter((e) => e.type === "tool-call-end"),
    [
      { type: "tool-call-end", id: "a", name: "glob", input: { p: 1 } },
      { type: "tool-call-end", id: "b", name: "grep", input: {} },
      { type: "tool-call-end", id: "c", name: "ls", input: {} },
    ],
  );
  assert.equal(openAIStopReason(state), "tool_use");
  assert.equal(state.complete, true);
});

test("arguments that arrive before the name are announced once the name comes", () => {
  const state = createOpenAIStreamState();
  const events = feed(
    state,
    chunk({ tool_calls: [{ index: 0, id: "x", function: { arguments: '{"a"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { name: "read", arguments: ":2}" } }] }),
    chunk({}, "tool_calls"),
  );
  assert.deepEqual(events, [
    { type: "tool-call-start", id: "x", name: "read" },
    { type: "tool-call-delta", id: "x", partialJson: '{"a":2}' },
    { type: "tool-call-end", id: "x", name: "read", input: { a: 2 } },
  ]);
});

test("a call that never gets a name ends the stream as an error", () => {
  const state = createOpenAIStreamState();
  feed(state, chunk({ tool_calls: [{ index: 0, id: "x", function: { arguments: "{}" } }] }), chunk({}, "tool_calls"));
  assert.match(state.fatal ?? "", /tool call without a function name \(x\)/);
  assert.equal(state.complete, false);
});

test("a refusal is shown as text and ends with stop reason refusal", () => {
  const state = createOpenAIStreamState();
  const events = feed(state, chunk({ refusal: "I can't help with that." }), chunk({}, "stop"));
  assert.deepEqual(events, [{ type: "text-delta", text: "I can't help with that." }]);
  assert.equal(openAIStopReason(state), "refusal");
  assert.deepEqual(openAIAssistantMessage(state).content, [{ type: "text", text: "I can't help with that." }]);
});

test("a chunk with text and a finish_reason yields the text and completes", () => {
  const state = createOpenAIStreamState();
  assert.deepEqual(feed(state, chunk({ content: "bye" }, "stop")), [{ type: "text-delta", text: "bye" }]);
  assert.equal(state.complete, true);
  assert.equal(openAIStopReason(state), "end_turn");
});

test("calls without an index that repeat their id on every delta are one call each", () => {
  const state = createOpenAIStreamState();
  const events = feed(
    state,
    chunk({ tool_calls: [{ id: "call_1", function: { name: "bash", arguments: "" } }] }),
    chunk({ tool_calls: [{ id: "call_1", function: { arguments: '{"command":' } }] }),
    chunk({ tool_calls: [{ id: "call_1", function: { name: "bash", arguments: '"ls"}' } }] }),
    chunk({ tool_calls: [{ id: "call_2", function: { name: "read", arguments: '{"path":"a"}' } }] }),
    chunk({}, "tool_calls"),
  );
  assert.deepEqual(
    events.filter((e) => e.type === "tool-call-end"),
    [
      { type: "tool-call-end", id: "call_1", name: "bash", input: { command: "ls" } },
      { type: "tool-call-end", id: "call_2", name: "read", input: { path: "a" } },
    ],
  );
  assert.equal(state.fatal, undefined);
});

test("indexed calls whose arguments come after both names keep their arguments", () => {
  const state = createOpenAIStreamState();
  const events = feed(
    state,
    chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "bash", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "read", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls"}' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '{"path":"x"}' } }] }),
    chunk({}, "tool_calls"),
  );
  assert.deepEqual(
    events.filter((e) => e.type === "tool-call-end"),
    [
      { type: "tool-call-end", id: "a", name: "bash", input: { command: "ls" } },
      { type: "tool-call-end", id: "b", name: "read", input: { path: "x" } },
    ],
  );
});

test("whole calls that all say index 0 but have their own ids and names are separate calls", () => {
  const bash = { index: 0, id: "a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } };
  const read = { index: 0, id: "b", type: "function", function: { name: "read", arguments: '{"path":"x"}' } };
  for (const chunks of [[chunk({ tool_calls: [bash] }), chunk({ tool_calls: [read] })], [chunk({ tool_calls: [bash, read] })]]) {
    const state = createOpenAIStreamState();
    const events = feed(state, ...chunks, chunk({}, "tool_calls"));
    assert.deepEqual(
      events.filter((e) => e.type === "tool-call-end"),
      [
        { type: "tool-call-end", id: "a", name: "bash", input: { command: "ls" } },
        { type: "tool-call-end", id: "b", name: "read", input: { path: "x" } },
      ],
    );
  }
});

test("usage Groq sends under x_groq in the last chunk is counted", () => {
  const state = createOpenAIStreamState();
  const last = { ...chunk({}, "stop"), x_groq: { id: "req_1", usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 } } };
  feed(state, chunk({ content: "Hi" }), last as OpenAI.Chat.Completions.ChatCompletionChunk);
  assert.equal(state.usage.inputTokens, 120);
  assert.equal(state.usage.outputTokens, 30);
  assert.equal(state.usage.unreportedCalls, undefined);
});

test("arguments sent as a JSON object rather than a string of one are taken as they are", () => {
  const state = createOpenAIStreamState();
  const events = feed(state, chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "bash", arguments: { command: "ls" } } }] }), chunk({}, "tool_calls"));
  assert.deepEqual(events.filter((e) => e.type === "tool-call-end"), [{ type: "tool-call-end", id: "a", name: "bash", input: { command: "ls" } }]);
});

test("a reply whose server gave its reasoning in a field of its own keeps a </think> line of its content as text", () => {
  const state = createOpenAIStreamState();
  const events = feed(state, chunk({ reasoning_content: "They ask about tags." }), chunk({ content: "The closing tag:\n" }), chunk({ content: "</think>\nends it." }), chunk({}, "stop"));
  assert.deepEqual(
    events.filter((e) => e.type !== "thinking-delta").map((e) => e.type),
    ["text-delta", "text-delta"],
  );
  assert.deepEqual(openAIAssistantMessage(state).content.at(-1), { type: "text", text: "The closing tag:\n</think>\nends it." });
  assert.equal(state.reasoning, "They ask about tags.");
});
