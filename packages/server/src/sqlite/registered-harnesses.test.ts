import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteDatabase } from "./store.ts";
import type { RegisteredHarness } from "./registered-harnesses.ts";
import { testDir } from "../test-helpers.ts";

const harness = (id: string, at: string): RegisteredHarness => ({
  id,
  name: `Harness ${id}`,
  vendor: "Acme",
  description: "a harness",
  executionType: "hosted",
  status: "active",
  config: { base_url: "https://acme.example/v1" },
  createdAt: at,
  updatedAt: at,
});

test("registered harnesses are kept across a reopening in the order registered; an id is registered once; changed and removed by id", async (t) => {
  const path = join(await testDir(t), "harness.db");
  let db = openSqliteDatabase(path);
  assert.equal(db.registeredHarnesses.add(harness("b-one", "2026-01-02T00:00:00.000Z")), true);
  assert.equal(db.registeredHarnesses.add(harness("a-two", "2026-01-03T00:00:00.000Z")), true);
  assert.equal(db.registeredHarnesses.add({ ...harness("b-one", "2026-01-04T00:00:00.000Z"), name: "Another" }), false, "an id taken is not registered over");
  assert.equal(db.registeredHarnesses.replace({ ...harness("a-two", "2026-01-03T00:00:00.000Z"), status: "maintenance", capabilities: { agents: { supported: false, operations: [] } }, version: "2.1" }), true);
  assert.equal(db.registeredHarnesses.replace(harness("none", "2026-01-03T00:00:00.000Z")), false);
  db.close();
  db = openSqliteDatabase(path);
  t.after(() => db.close());
  const listed = db.registeredHarnesses.list();
  assert.deepEqual(listed.map((h) => [h.id, h.name, h.status]), [["b-one", "Harness b-one", "active"], ["a-two", "Harness a-two", "maintenance"]]);
  assert.deepEqual(db.registeredHarnesses.get("a-two")!.capabilities, { agents: { supported: false, operations: [] } });
  assert.equal(db.registeredHarnesses.get("a-two")!.version, "2.1");
  assert.equal(db.registeredHarnesses.count(), 2);
  assert.equal(db.registeredHarnesses.remove("b-one"), true);
  assert.equal(db.registeredHarnesses.remove("b-one"), false);
  assert.equal(db.registeredHarnesses.get("b-one"), undefined);
  assert.equal(db.registeredHarnesses.count(), 1);
});
