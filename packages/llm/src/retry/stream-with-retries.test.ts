import assert from "node:assert/strict";
import { test } from "node:test";
import { streamWithRetries, type AttemptState, type WireStream } from "./stream-with-retries.ts";

type State = AttemptState & { text: string };

/** A wire whose stream yields one piece of text, then nothing more, ever. */
function hangingWire(): WireStream<string, State> {
  return {
    createState: () => ({ complete: false, fatal: undefined, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, text: "" }),
    open: async () =>
      (async function* () {
        yield "hello";
        await new Promise(() => {});
      })(),
    apply: (state, raw) => {
      state.text += raw;
      return { type: "text-delta", text: raw };
    },
    message: (state) => ({ role: "assistant", content: [{ type: "text", text: state.text }] }),
    stopReason: () => "end_turn",
    requestFailure: () => ({ description: "unused", retryable: false }),
    streamFailure: () => ({ description: "unused", retryable: false }),
    incompleteDescription: "unused",
  };
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

test("a caller that stops reading mid-stream leaves no stream watchdog behind to keep the process alive", async () => {
  const before = timers();
  for await (const event of streamWithRetries(hangingWire(), { maxRetries: 0, retryBaseMs: 1, streamIdleMs: 600_000 }, { model: "m", messages: [] })) {
    assert.equal(event.type, "text-delta");
    break;
  }
  assert.equal(timers(), before);
});
