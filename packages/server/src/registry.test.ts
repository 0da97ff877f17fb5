// Resuming runs at start on a store that fails: the server logs why and goes on serving.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSessionRegistry } from "./registry.ts";
import type { SqliteDatabase, SqliteSessionStore } from "./sqlite/store.ts";
import { fakeRunners } from "./test-helpers.ts";

const MALFORMED = "database disk image is malformed";

function registryOver(db: Partial<SqliteDatabase>, lines: string[]) {
  return createSessionRegistry({ db: db as SqliteDatabase, runnerFactory: fakeRunners().factory, idleMs: 60_000, log: (line) => lines.push(line) });
}

test("resumeRuns: when the store cannot list the sessions with a run, it says so and resolves", async () => {
  const lines: string[] = [];
  const registry = registryOver(
    {
      sessionsWithRun: () => {
        throw new Error(MALFORMED);
      },
    },
    lines,
  );
  await registry.resumeRuns();
  assert.deepEqual(lines, [`cannot look for runs to resume: ${MALFORMED}; runs in flight when the server stopped are not resumed`]);
  assert.equal(registry.size(), 0);
});

test("resumeRuns: a session that cannot be opened is named, and the others are resumed", async () => {
  const lines: string[] = [];
  const loaded: string[] = [];
  const registry = registryOver(
    {
      sessionsWithRun: () => [
        { userId: "u", sessionId: "bad" },
        { userId: "u", sessionId: "good" },
      ],
      storeFor: (_userId: string, sessionId: string) =>
        ({
          load: () => {
            loaded.push(sessionId);
            if (sessionId === "bad") throw new Error(MALFORMED);
            return undefined;
          },
          write: () => {},
          unstoredSeq: () => 0,
          readBatches: () => [],
        }) satisfies Partial<SqliteSessionStore> as SqliteSessionStore,
    },
    lines,
  );
  await registry.resumeRuns();
  assert.deepEqual(loaded.sort(), ["bad", "good"]);
  assert.deepEqual(lines, [`cannot resume the run of session u/bad: ${MALFORMED}`]);
  // The good one was opened and released: it stays in memory until its idle time passes.
  assert.equal(registry.size(), 1);
  await registry.close();
});

test("a session ends for how its last client left; one still held when the server stops, for the reason the server is given", async () => {
  const runners = fakeRunners();
  const store = { load: () => undefined, write: () => {}, unstoredSeq: () => 0, readBatches: () => [] } satisfies Partial<SqliteSessionStore> as SqliteSessionStore;
  const db = { storeFor: () => store } as Partial<SqliteDatabase> as SqliteDatabase;
  const registry = createSessionRegistry({ db, runnerFactory: runners.factory, idleMs: 60_000, log: () => {} });
  (await registry.acquire("u", "left")).release("prompt_input_exit");
  const dropped = await registry.acquire("u", "dropped");
  dropped.release("prompt_input_exit");
  // A client that comes back, then goes without saying how: its way of leaving is the one that counts.
  (await registry.acquire("u", "dropped")).release();
  await registry.acquire("u", "held");
  await registry.close("prompt_input_exit");
  assert.deepEqual(
    ["left", "dropped", "held"].map((id) => runners.runners.get(`u/${id}`)?.ended),
    [["prompt_input_exit"], [undefined], ["prompt_input_exit"]],
  );
});

test("a session that leaves memory has the background shells still running written down as killed: its runner, which kept them, is stopped", async () => {
  const runners = fakeRunners();
  const store = { load: () => undefined, write: () => {}, unstoredSeq: () => 0, readBatches: () => [] } satisfies Partial<SqliteSessionStore> as SqliteSessionStore;
  const db = { storeFor: () => store } as Partial<SqliteDatabase> as SqliteDatabase;
  const registry = createSessionRegistry({ db, runnerFactory: runners.factory, idleMs: 60_000, log: () => {} });
  const lease = await registry.acquire("u", "shells");
  const done = { id: "ef34ab", command: "true", status: "completed" as const, startedAt: 1_000, endedAt: 1_100, exitCode: 0 };
  lease.session.commit([{ type: "set", path: ["shells"], value: [{ id: "ab12cd", command: "sleep 100", status: "running", startedAt: 2_000 }, done] }]);
  await registry.close();
  const [killed, completed] = lease.session.snapshot().state.shells!;
  assert.equal(killed!.status, "killed");
  assert.equal(typeof killed!.endedAt, "number");
  assert.deepEqual(completed, done);
  assert.equal(runners.runners.get("u/shells")?.stops, 1);
});
