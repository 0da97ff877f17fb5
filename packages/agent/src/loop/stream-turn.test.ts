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
