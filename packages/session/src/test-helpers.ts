// Shared by this package's tests: a connection that behaves like a minimal client (it applies state
// and delta frames, and checks that seqs have no gap and no duplicate), and a condition wait.
import assert from "node:assert/strict";
import { applyOperations, type HarnessState, type ServerMessage } from "@harness/protocol";
import type { Connection } from "./session.ts";

export type Recorder = Connection & {
  frames: ServerMessage[];
  errors: Extract<ServerMessage, { type: "error" }>[];
  state: HarnessState | undefined;
  seq: number;
};

/** A client; `from` starts it with a state and seq it already holds (a reconnect). */
export function recorder(from?: { state: HarnessState; seq: number }): Recorder {
  const r: Recorder = {
    frames: [],
    errors: [],
    state: from ? structuredClone(from.state) : undefined,
    seq: from?.seq ?? -1,
    send(raw: string) {
      const frame = JSON.parse(raw) as ServerMessage;
      r.frames.push(frame);
      if (frame.type === "error") r.errors.push(frame);
      else if (frame.type === "state") {
        r.state = frame.state;
        r.seq = frame.seq;
      } else {
        assert.ok(r.state, "a delta arrived before any state");
        assert.equal(frame.seq, r.seq + 1, `delta ${frame.seq} does not follow ${r.seq}`);
        r.state = applyOperations(r.state, frame.operations);
        r.seq = frame.seq;
      }
    },
  };
  return r;
}

export async function until(condition: () => boolean, what = "the condition", timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export function commandsFrame(...commands: unknown[]): string {
  return JSON.stringify({ type: "commands", commands });
}
