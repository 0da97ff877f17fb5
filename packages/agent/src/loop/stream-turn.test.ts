import { test } from "node:test";
import assert from "node:assert/strict";
import type { ModelEvent, Provider } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { streamTurn } from "./stream-turn.ts";

/** A provider whose one stream yields `events`. */
const playing = (events: ModelEvent[]): Provider => ({
  name: "played",
  async *stream() {
    yield* events;
  },
});

test("thinking streams as thinking events; thinking of an attempt given up on is withdrawn before the next attempt's", async () => {
  const emitted: AgentEvent[] = [];
  const outcome = await streamTurn(
    playing([
      { type: "thinking-delta", text: "First " },
      { type: "thinking-delta", text: "try." },
      { type: "retry", attempt: 1, delayMs: 10, reason: "overloaded" },
      { type: "thinking-delta", text: "Second try." },
      { type: "text-delta", text: "Done." },
      { type: "done", stopReason: "end_turn", message: { role: "assistant", content: [{ type: "text", text: "Done." }] }, usage: { inputTokens: 1, outputTokens: 1 } },
    ]),
    { model: "m", messages: [] } as never,
    (event) => emitted.push(event),
    new Set(),
  );
  assert.equal(outcome.stopReason, "end_turn");
  assert.deepEqual(
    emitted.filter((e) => e.type !== "notice"),
    [
      { type: "assistant.thinking", text: "First " },
      { type: "assistant.thinking", text: "try." },
      { type: "assistant.retracted", text: "First try.", thinking: true },
      { type: "assistant.thinking", text: "Second try." },
      { type: "assistant.delta", text: "Done." },
    ],
  );
});

test("a retry is a notice in words and, for telemetry, in fields: the failed attempt, its HTTP status when it had one, the error and the wait", async () => {
  const emitted: AgentEvent[] = [];
  const end: ModelEvent = { type: "done", stopReason: "end_turn", message: { role: "assistant", content: [{ type: "text", text: "ok" }] }, usage: { inputTokens: 1, outputTokens: 1 } };
  await streamTurn(
    playing([
      { type: "retry", attempt: 1, delayMs: 1000, reason: "overloaded", code: "529", maxAttempts: 3 },
      { type: "retry", attempt: 2, delayMs: 2000, reason: "the stream broke", code: "overloaded_error" },
      end,
    ]),
    { model: "m", messages: [] } as never,
    (event) => emitted.push(event),
    new Set(),
  );
  assert.deepEqual(emitted.filter((e) => e.type === "notice"), [
    { type: "notice", level: "warning", message: "The model request failed (overloaded); trying again in 1 s (attempt 2).", retry: { attempt: 1, maxAttempts: 3, status: 529, error: "overloaded", delayMs: 1000 } },
    { type: "notice", level: "warning", message: "The model request failed (the stream broke); trying again in 2 s (attempt 3).", retry: { attempt: 2, error: "the stream broke", delayMs: 2000 } },
  ]);
});
