// A store that cannot take the session's writes (a full disk): the session goes on in memory, and
// its clients are told, once, that what they see is not being saved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createFakeRunner } from "./fake-runner.ts";
import { NOT_STORED } from "./core.ts";
import { openSession } from "./session.ts";
import { memoryStore, type SessionStore } from "./store.ts";
import { commandsFrame, recorder, until } from "./test-helpers.ts";

test("clients are told once that the session is not being saved, and why; it is saved once the store takes writes again", async () => {
  const inner = memoryStore();
  let full = false;
  const store: SessionStore = {
    load: () => inner.load(),
    write: (batches, snapshot, options) => {
      if (full) throw new Error("database or disk is full");
      return inner.write(batches, snapshot, options);
    },
  };
  const errors: string[] = [];
  const session = await openSession({ runner: createFakeRunner(), store, flushDelayMs: 1, onError: (e) => errors.push(String(e)) });
  const client = recorder();
  session.connect(client);
  full = true;
  for (const prompt of ["one", "two", "three"]) {
    session.receive(client, commandsFrame({ type: "configure", config: { systemPrompt: prompt } }));
    await session.flush().catch(() => {});
  }
  await until(() => errors.length >= 2, "the failed writes");
  const told = client.errors.filter((e) => e.code === NOT_STORED);
  assert.equal(told.length, 1, "told once, not at every failed write");
  assert.match(told[0].message, /^this session could not be saved \(database or disk is full\): its latest changes are kept in memory/);
  const late = recorder();
  session.connect(late);
  assert.equal(late.errors.at(-1)?.code, NOT_STORED, "a client that connects meanwhile is told too");

  full = false;
  session.receive(client, commandsFrame({ type: "configure", config: { systemPrompt: "four" } }));
  await session.flush();
  const stored = (await inner.load())!;
  assert.equal(stored.batches.at(-1)?.seq ?? stored.snapshot.seq, client.seq, "everything is stored once the store takes it");
  const after = recorder();
  session.connect(after);
  assert.deepEqual(after.errors, [], "nothing to tell once it is stored");
});

test("a write the store refused is tried again by itself, so an idle session is stored once the store takes writes again", async () => {
  const inner = memoryStore();
  let locked = true;
  const store: SessionStore = {
    load: () => inner.load(),
    write: (batches, snapshot, options) => {
      if (locked) throw new Error("the session database is locked by another process");
      return inner.write(batches, snapshot, options);
    },
  };
  const errors: string[] = [];
  const session = await openSession({ runner: createFakeRunner(), store, flushDelayMs: 1, storeRetryMs: 20, onError: (e) => errors.push(String(e)) });
  const client = recorder();
  session.connect(client);
  session.receive(client, commandsFrame({ type: "configure", config: { systemPrompt: "kept" } }));
  await until(() => errors.length >= 1, "the refused write");
  locked = false;
  // Nothing more happens in the session: the write goes again of itself.
  await until(() => inner.writes > 0, "the write tried again");
  const stored = (await inner.load())!;
  assert.equal(stored.batches.at(-1)?.seq ?? stored.snapshot.seq, client.seq, "everything the clients saw is stored");
  assert.match(JSON.stringify(stored), /kept/);
});
