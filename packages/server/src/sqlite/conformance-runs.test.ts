import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteDatabase } from "./store.ts";
import { MAX_RUNS_PER_USER } from "./conformance-runs.ts";
import { testDir } from "../test-helpers.ts";

test("a user's conformance runs are kept across a reopening, the newest first, apart from other users', the last 50 only", async (t) => {
  const path = join(await testDir(t), "harness.db");
  let db = openSqliteDatabase(path);
  for (let i = 1; i <= MAX_RUNS_PER_USER + 2; i++) db.conformanceRuns.add({ id: `r${i}`, userId: "ann", runAt: 1000 + i, record: { passed: i } });
  db.conformanceRuns.add({ id: "b1", userId: "bob", runAt: 5, record: { passed: 0 } });
  db.close();
  db = openSqliteDatabase(path);
  t.after(() => db.close());
  const anns = db.conformanceRuns.list("ann");
  assert.equal(anns.length, MAX_RUNS_PER_USER);
  assert.deepEqual(anns.slice(0, 2).map((r) => [r.id, r.record]), [["r52", { passed: 52 }], ["r51", { passed: 51 }]]);
  assert.equal(anns.at(-1)!.id, "r3", "the two oldest went");
  assert.equal(db.conformanceRuns.get("ann", "r1"), undefined);
  assert.equal(db.conformanceRuns.get("bob", "r52"), undefined, "another user's run is not found");
  assert.deepEqual(db.conformanceRuns.list("bob").map((r) => r.id), ["b1"]);
});
