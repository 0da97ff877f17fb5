// Resuming runs at start on a store that fails: the server logs why and goes on serving.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSessionRegistry } from "./registry.ts";
import type { SqliteDatabase, SqliteSessionStore } from "./sqlite-store.ts";
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
