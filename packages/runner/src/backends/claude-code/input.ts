// The user side of a Claude Code conversation in streaming input mode: an async iterable of user
// messages that stays open while the run may still be steered, and ends when the run is over.
import type { SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";

export type InputQueue = {
  /** Handed to query() as its prompt; yields each pushed message once, in order. */
  messages: AsyncIterable<SDKUserMessage>;
  /** Queues a user message. Ignored after end(). */
  push(text: string): void;
  /** No more messages: the iterable finishes once the queued ones are taken. */
  end(): void;
  ended(): boolean;
};

export function createInputQueue(): InputQueue {
  const queued: SDKUserMessage[] = [];
  let closed = false;
  let wake: (() => void) | undefined;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  async function* messages(): AsyncGenerator<SDKUserMessage> {
    while (true) {
      const next = queued.shift();
      if (next) {
        yield next;
        continue;
      }
      if (closed) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }

  return {
    messages: messages(),
    push(text) {
      if (closed) return;
      queued.push({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null });
      notify();
    },
    end() {
      closed = true;
      notify();
    },
    ended: () => closed,
  };
}
