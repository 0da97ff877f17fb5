// What a reconnecting client is sent when it missed a lot: the frames it missed while they are few
// and small, a state frame once they would cost more than one (or more than the replay budget), with
// neither the in-memory log nor the store holding or reading more than that budget.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createFakeRunner } from "./fake-runner.ts";
import { openSession, type SessionOptions } from "./session.ts";
import { memoryStore, type SessionStore } from "./store.ts";
import { commandsFrame, recorder } from "./test-helpers.ts";

/** A session whose client sent `count` configure commands, each setting a different system prompt
 * of `size` characters: every batch carries a prompt, the state only the last one. */
async function configured(count: number, size: number, options: Partial<SessionOptions> = {}) {
  const store = options.store ?? memoryStore();
  const session = await openSession({ runner: createFakeRunner(), store, onError: (e) => assert.fail(String(e)), ...options });
  const client = recorder();
  session.connect(client);
  for (let i = 0; i < count; i++) session.receive(client, commandsFrame({ type: "configure", config: { systemPrompt: `${i}`.padEnd(size, "x") } }));
  assert.deepEqual(client.errors, []);
  await session.flush();
  return { session, client, store };
}

/** What a client that holds batch `since` (and every frame before it that `client` saw) is sent. */
function reconnect(session: Awaited<ReturnType<typeof configured>>["session"], client: ReturnType<typeof recorder>, since: number) {
  const held = recorder();
  for (const frame of client.frames) {
    if (frame.type !== "error" && frame.seq <= since) held.send(JSON.stringify(frame));
  }
  const before = held.frames.length;
  session.connect(held, since);
  return { kinds: held.frames.slice(before).map((f) => f.type), state: held.state, seq: held.seq };
}

test("a client that missed a few small batches is replayed exactly those", async () => {
  const { session, client } = await configured(5, 100);
  const got = reconnect(session, client, client.seq - 3);
  assert.deepEqual(got.kinds, ["delta", "delta", "delta"]);
  assert.deepEqual(got.state, client.state);
  assert.equal(got.seq, client.seq);
});

test("a client that missed more than a state frame holds is sent the state frame instead", async () => {
  // Ten batches of 20,000 characters each: 200 KB of deltas, where the state holds one prompt.
  const { session, client } = await configured(10, 20_000);
  const got = reconnect(session, client, client.seq - 9);
  assert.deepEqual(got.kinds, ["state"]);
  assert.deepEqual(got.state, client.state);
  assert.equal(got.seq, client.seq);
});

test("a client that missed more than replayBytes is sent a state frame, from the in-memory log or from the store", async () => {
  for (const logCapacity of [1000, 2]) {
    const { session, client } = await configured(6, 500, { replayBytes: 2_000, logCapacity });
    const few = reconnect(session, client, client.seq - 2);
    assert.deepEqual(few.kinds, ["delta", "delta"], `within the budget (log of ${logCapacity})`);
    const many = reconnect(session, client, client.seq - 5);
    assert.deepEqual(many.kinds, ["state"], `past the budget (log of ${logCapacity})`);
    assert.deepEqual(many.state, client.state);
  }
});

test("the store is asked for no more than the replay budget, and a catch-up it finds too large is a state frame", async () => {
  const inner = memoryStore();
  const asked: (number | undefined)[] = [];
  const store: SessionStore = {
    load: () => inner.load(),
    write: (b, s, o) => inner.write(b, s, o),
    readBatches(after, maxBytes) {
      asked.push(maxBytes);
      return inner.readBatches!(after, maxBytes);
    },
  };
  const { session, client } = await configured(8, 400, { store, replayBytes: 1_500, logCapacity: 2 });
  assert.deepEqual(reconnect(session, client, client.seq - 6).kinds, ["state"]);
  assert.deepEqual(asked, [1_500]);
  assert.deepEqual(reconnect(session, client, client.seq - 3).kinds, ["delta", "delta", "delta"]);
});
