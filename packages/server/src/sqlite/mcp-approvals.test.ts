import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteDatabase } from "./store.ts";
import { testDir } from "../test-helpers.ts";

const print = (c: string) => c.repeat(64);

test("a session's MCP approvals are kept across a reopening, apart from other sessions', replaced by name, and go with the session", async (t) => {
  const path = join(await testDir(t), "harness.db");
  let db = openSqliteDatabase(path);
  db.mcpApprovals.put("ann", "s1", { name: "kit", entry: print("a") });
  db.mcpApprovals.put("ann", "s1", { name: "docs", entry: print("b") });
  db.mcpApprovals.put("ann", "s2", { name: "kit", entry: print("c") });
  db.mcpApprovals.put("ann", "s1", { name: "kit", entry: print("d") });
  db.close();
  db = openSqliteDatabase(path);
  t.after(() => db.close());
  assert.deepEqual(db.mcpApprovals.list("ann", "s1"), [{ name: "docs", entry: print("b") }, { name: "kit", entry: print("d") }]);
  assert.deepEqual(db.mcpApprovals.list("bob", "s1"), []);
  assert.equal(db.mcpApprovals.delete("ann", "s1", "docs"), true);
  assert.equal(db.mcpApprovals.delete("ann", "s1", "docs"), false);
  await db.deleteSession("ann", "s1");
  assert.deepEqual(db.mcpApprovals.list("ann", "s1"), []);
  assert.deepEqual(db.mcpApprovals.list("ann", "s2"), [{ name: "kit", entry: print("c") }]);
});
