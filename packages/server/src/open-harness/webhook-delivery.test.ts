import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createDeliverer, MAX_PENDING, RETRIES, type Delivery } from "./webhook-delivery.ts";

const delivery = (url: string): Delivery => ({ url, secret: "s".repeat(16), event: "execution.completed", id: crypto.randomUUID(), timestamp: new Date().toISOString(), body: "{}" });

async function receiver(status: number) {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    req.resume();
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, count: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const settled = async (deliverer: { pending(): number }) => {
  for (let i = 0; i < 200 && deliverer.pending() > 0; i++) await new Promise((r) => setTimeout(r, 20));
};

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
