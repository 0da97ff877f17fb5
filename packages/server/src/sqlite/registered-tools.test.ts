import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteDatabase } from "./store.ts";
import { testDir } from "../test-helpers.ts";

const tool = (name: string, url = `https://tools.example.com/${name}`) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: { id: { type: "string" } } }, url });

test("a session's registered tools are kept across a reopening in the order registered, apart from other sessions', never replaced by name, and go with the session", async (t) => {
  const path = join(await testDir(t), "harness.db");
  let db = openSqliteDatabase(path);
  assert.equal(db.registeredTools.add("ann", "s1", tool("zeta")), true);
  assert.equal(db.registeredTools.add("ann", "s1", tool("alpha")), true);
  assert.equal(db.registeredTools.add("ann", "s1", tool("zeta", "https://elsewhere.example.com")), false);
  assert.equal(db.registeredTools.add("ann", "s2", tool("zeta")), true);
  db.close();
  db = openSqliteDatabase(path);
  t.after(() => db.close());
  assert.deepEqual(db.registeredTools.list("ann", "s1"), [tool("zeta"), tool("alpha")]);
  assert.deepEqual(db.registeredTools.list("bob", "s1"), []);
  assert.equal(db.registeredTools.delete("ann", "s1", "alpha"), true);
  assert.equal(db.registeredTools.delete("ann", "s1", "alpha"), false);
  await db.deleteSession("ann", "s1");
  assert.deepEqual(db.registeredTools.list("ann", "s1"), []);
  assert.deepEqual(db.registeredTools.list("ann", "s2"), [tool("zeta")]);
});
