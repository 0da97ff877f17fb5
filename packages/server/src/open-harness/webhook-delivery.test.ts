import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createDeliverer, MAX_OUTBOX_AGE_MS, MAX_PENDING, RESUME_SPACING_MS, resumeDeliveries, RETRIES, signatureOf, type Delivery } from "./webhook-delivery.ts";
import { openDatabaseFile } from "../sqlite/schema.ts";
import { createWebhookOutbox } from "../sqlite/webhook-outbox.ts";
import { createWebhookStore } from "../sqlite/webhooks.ts";
import { testDir } from "../test-helpers.ts";
import { holdLock } from "@harness/test-utils";

const delivery = (url: string): Delivery => ({ webhookId: "wh_1", userId: "ann", url, secret: "s".repeat(16), event: "execution.completed", id: crypto.randomUUID(), timestamp: new Date().toISOString(), body: "{}" });

async function receiver(status: number) {
  let count = 0;
  const got: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const server = createServer((req, res) => {
    count++;
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, count: () => count, got, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const settled = async (deliverer: { pending(): number }) => {
  for (let i = 0; i < 200 && deliverer.pending() > 0; i++) await new Promise((r) => setTimeout(r, 20));
};

/** A database file of the test's own with its outbox and webhooks; closed when the test ends. */
async function stores(t: TestContext, file?: string) {
  const db = openDatabaseFile(file ?? join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  return { db, outbox: createWebhookOutbox(db), webhooks: createWebhookStore(db) };
}

/** A receiver answering `status`, closed when the test ends. */
async function receiverFor(t: TestContext, status: number) {
  const r = await receiver(status);
  t.after(() => r.close());
  return r;
}

const liveHook = (url: string) => ({ id: "wh_1", userId: "ann", url, events: ["execution.completed"], secret: "s".repeat(16), enabled: true, createdAt: 1 });

test("a 5xx is tried RETRIES times more, then given up and logged; a 4xx is not tried again", async (t) => {
  const failing = await receiver(503);
  const refusing = await receiver(404);
  t.after(() => Promise.all([failing.close(), refusing.close()]));
  const lines: string[] = [];
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: (line) => lines.push(line) });
  deliverer.send(delivery(failing.url));
  deliverer.send(delivery(refusing.url));
  await settled(deliverer);
  assert.equal(failing.count(), 1 + RETRIES);
  assert.equal(refusing.count(), 1);
  assert.equal(lines.length, 2);
  assert.ok(lines.some((line) => /answered 503\) after 4 attempts/.test(line)), lines.join("\n"));
});

test("a name that resolves to this machine is refused at delivery unless private addresses are allowed, and not tried again", async (t) => {
  const ok = await receiver(200);
  t.after(() => ok.close());
  const url = ok.url.replace("127.0.0.1", "localhost");
  const lines: string[] = [];
  const strict = createDeliverer({ allowPrivate: false, retryBaseMs: 1, log: (line) => lines.push(line) });
  strict.send(delivery(url));
  await settled(strict);
  assert.equal(ok.count(), 0);
  assert.match(lines.join("\n"), /resolves to .*this machine or its network.*after 1 attempt\b/);
  const open = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: (line) => lines.push(line) });
  open.send(delivery(url));
  await settled(open);
  assert.equal(ok.count(), 1);
});

test("while a receiver is down, at most MAX_PENDING deliveries wait; newer ones are dropped, logged once", async () => {
  const down = await receiver(200);
  await down.close();
  const lines: string[] = [];
  // Retries far off: every delivery waits for its next attempt.
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 600_000, log: (line) => lines.push(line) });
  for (let i = 0; i < MAX_PENDING + 5; i++) deliverer.send(delivery(down.url));
  assert.equal(deliverer.pending(), MAX_PENDING);
  assert.equal(lines.filter((line) => /dropped/.test(line)).length, 1);
});

test("with an outbox, a delivery is written down until it ends: its retry's attempt and time while it waits, nothing once given up or done", async (t) => {
  const { outbox } = await stores(t);
  const failing = await receiver(503);
  const ok = await receiver(204);
  t.after(() => Promise.all([failing.close(), ok.close()]));
  const slow = createDeliverer({ allowPrivate: true, retryBaseMs: 600_000, log: () => {}, outbox });
  const waiting = delivery(failing.url);
  const before = Date.now();
  slow.send(waiting);
  for (let i = 0; i < 200 && failing.count() === 0; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  const [row] = outbox.all(10);
  assert.equal(row.id, waiting.id);
  assert.equal(row.attempt, 1, "one attempt made");
  assert.ok(row.dueAt >= before + 600_000, "the next attempt is due after the retry's wait");
  assert.equal(row.body, waiting.body);

  const quick = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: () => {}, outbox });
  quick.send(delivery(failing.url));
  quick.send(delivery(ok.url));
  await settled(quick);
  assert.deepEqual(outbox.all(10).map((r) => r.id), [waiting.id], "the given-up and the done deliveries are deleted");
});

test("deliveries an earlier server left go on to their webhook as it is now, with their id, body and time; those of deleted or disabled webhooks, or over a day old, are dropped and said", async (t) => {
  const { outbox, webhooks } = await stores(t);
  const ok = await receiverFor(t, 200);
  webhooks.put({ id: "wh_live", userId: "ann", url: ok.url, events: ["execution.completed"], secret: "the-secret-of-now", enabled: true, createdAt: 1 });
  webhooks.put({ id: "wh_off", userId: "ann", url: ok.url, events: ["execution.completed"], secret: "s".repeat(16), enabled: false, createdAt: 2 });
  const now = new Date().toISOString();
  const row = (id: string, webhookId: string, timestamp = now) => ({ id, webhookId, userId: "ann", event: "execution.completed", timestamp, body: `{"n":"${id}"}`, attempt: 2, dueAt: Date.now() - 1000 });
  outbox.put(row("d-live", "wh_live"));
  outbox.put(row("d-gone", "wh_deleted"));
  outbox.put(row("d-off", "wh_off"));
  outbox.put(row("d-old", "wh_live", new Date(Date.now() - MAX_OUTBOX_AGE_MS - 60_000).toISOString()));
  outbox.put({ ...row("d-bob", "wh_live"), userId: "bob" });
  const lines: string[] = [];
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: (line) => lines.push(line), outbox });
  assert.equal(resumeDeliveries(outbox, webhooks, deliverer, (line) => lines.push(line)), 1);
  await settled(deliverer);
  assert.equal(ok.count(), 1);
  const [got] = ok.got;
  assert.equal(got.headers["x-openharness-delivery"], "d-live");
  assert.equal(got.headers["x-openharness-timestamp"], now);
  assert.equal(got.body, '{"n":"d-live"}');
  assert.equal(got.headers["x-openharness-signature"], signatureOf("the-secret-of-now", got.body));
  assert.deepEqual(outbox.all(10), []);
  const said = lines.join("\n");
  for (const why of [/d-gone \(its webhook was deleted\)/, /d-off \(its webhook is disabled\)/, /d-old \(it is over a day old\)/, /d-bob \(its webhook was deleted\)/]) assert.match(said, why);
});

test("a delivery whose webhook is deleted or disabled while it waits for a retry is not tried again, and is no longer written down; one whose URL changed goes to the new one", async (t) => {
  const { outbox, webhooks } = await stores(t);
  const failing = await receiver(503);
  const moved = await receiver(200);
  t.after(() => Promise.all([failing.close(), moved.close()]));
  const hook = (id: string, enabled = true) => ({ id, userId: "ann", url: failing.url, events: ["execution.completed"], secret: "s".repeat(16), enabled, createdAt: 1 });
  for (const id of ["wh_del", "wh_off", "wh_moved"]) webhooks.put(hook(id));
  const lines: string[] = [];
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 1000, log: (line) => lines.push(line), outbox, webhooks });
  for (const id of ["wh_del", "wh_off", "wh_moved"]) deliverer.send({ ...delivery(failing.url), webhookId: id });
  for (let i = 0; i < 200 && failing.count() < 3; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(failing.count(), 3);
  webhooks.delete("ann", "wh_del");
  webhooks.put(hook("wh_off", false));
  webhooks.put({ ...hook("wh_moved"), url: moved.url });
  await settled(deliverer);
  assert.equal(deliverer.pending(), 0);
  assert.equal(failing.count(), 3, "no attempt after the deletion or the disabling");
  assert.equal(moved.count(), 1);
  assert.deepEqual(outbox.all(10), []);
  assert.match(lines.join("\n"), /its webhook was deleted/);
});

test("a delivery resumed twice is sent once", async (t) => {
  const { outbox, webhooks } = await stores(t);
  const ok = await receiverFor(t, 200);
  webhooks.put(liveHook(ok.url));
  outbox.put({ id: "d-1", webhookId: "wh_1", userId: "ann", event: "execution.completed", timestamp: new Date().toISOString(), body: "{}", attempt: 1, dueAt: Date.now() });
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: () => {}, outbox, webhooks });
  assert.equal(resumeDeliveries(outbox, webhooks, deliverer, () => {}), 1);
  assert.equal(resumeDeliveries(outbox, webhooks, deliverer, () => {}), 0);
  await settled(deliverer);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(ok.count(), 1);
});

test("while another process holds the database's lock, deliveries still go, and that they are not written down is logged once", async (t) => {
  const file = join(await testDir(t), "harness.db");
  const { db, outbox, webhooks } = await stores(t, file);
  db.exec("PRAGMA busy_timeout = 100");
  const ok = await receiverFor(t, 200);
  webhooks.put(liveHook(ok.url));
  const lines: string[] = [];
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: (line) => lines.push(line), outbox, webhooks });
  const lock = await holdLock(file);
  try {
    for (let i = 0; i < 3; i++) deliverer.send({ ...delivery(ok.url), webhookId: "wh_1" });
    await settled(deliverer);
  } finally {
    await lock.release();
  }
  assert.equal(ok.count(), 3);
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /cannot write down deliveries/);
  deliverer.send({ ...delivery(ok.url), webhookId: "wh_1" });
  await settled(deliverer);
  assert.equal(ok.count(), 4);
  assert.deepEqual(outbox.all(10), []);
});

test("many deliveries an earlier server left are sent spaced out, not all at the same instant", async (t) => {
  const { outbox, webhooks } = await stores(t);
  const ok = await receiverFor(t, 200);
  webhooks.put(liveHook(ok.url));
  const count = 20;
  for (let i = 0; i < count; i++) outbox.put({ id: `d-${i}`, webhookId: "wh_1", userId: "ann", event: "execution.completed", timestamp: new Date().toISOString(), body: "{}", attempt: 1, dueAt: Date.now() - 60_000 });
  const deliverer = createDeliverer({ allowPrivate: true, retryBaseMs: 1, log: () => {}, outbox, webhooks });
  const start = Date.now();
  assert.equal(resumeDeliveries(outbox, webhooks, deliverer, () => {}), count);
  await new Promise((r) => setTimeout(r, RESUME_SPACING_MS * 2));
  assert.ok(ok.count() < count / 2, `${ok.count()} sent at once`);
  await settled(deliverer);
  assert.equal(ok.count(), count);
  assert.ok(Date.now() - start >= RESUME_SPACING_MS * (count - 1));
});
