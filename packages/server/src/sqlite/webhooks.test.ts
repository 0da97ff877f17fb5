import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabaseFile } from "./schema.ts";
import { createWebhookStore, type WebhookRow } from "./webhooks.ts";
import { testDir } from "../test-helpers.ts";

const hook = (id: string, userId: string, createdAt: number): WebhookRow => ({ id, userId, url: `https://example.com/${id}`, events: ["execution.completed"], secret: "s".repeat(16), enabled: true, createdAt });

test("webhooks are kept across a reopening of the file, each user's apart, and changed or deleted by their own user only", async (t) => {
  const path = join(await testDir(t), "harness.db");
  let db = openDatabaseFile(path);
  let store = createWebhookStore(db);
  store.put(hook("b", "ann", 2));
  store.put(hook("a", "ann", 1));
  store.put(hook("c", "bob", 3));
  store.put({ ...hook("b", "ann", 2), enabled: false, events: ["execution.started", "execution.failed"] });
  db.close();
  db = openDatabaseFile(path);
  t.after(() => db.close());
  store = createWebhookStore(db);
  assert.deepEqual(store.list("ann").map((h) => h.id), ["a", "b"], "the oldest first");
  assert.deepEqual(store.get("ann", "b"), { ...hook("b", "ann", 2), enabled: false, events: ["execution.started", "execution.failed"] });
  assert.equal(store.get("bob", "a"), undefined);
  assert.equal(store.delete("bob", "a"), false);
  assert.equal(store.delete("ann", "a"), true);
  assert.deepEqual(store.list("ann").map((h) => h.id), ["b"]);
  assert.deepEqual(store.list("bob").map((h) => h.id), ["c"]);
});
