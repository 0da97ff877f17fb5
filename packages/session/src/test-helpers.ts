// Shared by this package's tests: a connection that behaves like a minimal client (it applies state
// and delta frames, and checks that seqs have no gap and no duplicate), and a condition wait.
import assert from "node:assert/strict";
import { applyOperations, type HarnessState, type ServerMessage } from "@harness/protocol";
import { SEQ_JUMP_AFTER_CRASH, type SessionOptions } from "./core.ts";
import { createFakeRunner, type FakeRun, type FakeRunner } from "./fake-runner.ts";
import type { Connection } from "./ports.ts";
import { openSession, type HarnessSession } from "./session.ts";
import { memoryStore, type SessionStore } from "./store.ts";

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
        // Seqs are consecutive, except once across a host crash, where they jump by a known amount.
        const follows = frame.seq === r.seq + 1 || frame.seq === r.seq + SEQ_JUMP_AFTER_CRASH + 1;
        assert.ok(follows, `delta ${frame.seq} does not follow ${r.seq}`);
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

/** A session on a fake runner and a memory store, with one client connected. */
export async function startSession(options: Partial<SessionOptions> = {}) {
  const runner = (options.runner as FakeRunner | undefined) ?? createFakeRunner();
  const store = options.store ?? memoryStore();
  const session = await openSession({ onError: (e) => assert.fail(String(e)), ...options, runner, store });
  const client = recorder();
  session.connect(client);
  return { runner, store, session, client };
}

/** Sends a submit from `client` and returns the run it started. */
export async function submitAndRun(session: HarnessSession, client: Connection, runner: FakeRunner, prompt = "hi"): Promise<FakeRun> {
  session.receive(client, commandsFrame({ type: "submit", prompt }));
  return runner.nextRun();
}

/** Lets deferred commits and pending promises run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

/** A store whose writes stop at `crash()`, as when its host is killed; `inner` holds what was written. */
export function crashableStore() {
  const inner = memoryStore();
  let crashed = false;
  const store: SessionStore = {
    load: () => inner.load(),
    write: (batches, snapshot, options) => (crashed ? undefined : inner.write(batches, snapshot, options)),
    readBatches: (after, maxBytes) => inner.readBatches!(after, maxBytes),
  };
  return { inner, store, crash: () => (crashed = true) };
}
