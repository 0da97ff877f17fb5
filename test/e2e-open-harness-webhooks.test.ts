// Open Harness webhooks through a real `harness serve`: a receiver on loopback (allowed by
// HARNESS_WEBHOOKS_ALLOW_PRIVATE=1) is told of an execution's end by a signed POST, a 500 is
// retried (after a restart of the server too), a receiver that hangs or is down never slows the
// run, and users see only their own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startHarnessServer } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1 } from "./open-harness-support.ts";

type Received = { headers: IncomingHttpHeaders; body: string };

/** A receiver on loopback answering with `statuses` in turn (200 once they are used up), or never. */
async function receiver(statuses: number[] | "hang"): Promise<{ url: string; received: Received[]; close(): Promise<void>; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (statuses === "hang") return;
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, server, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

async function until<T>(what: string, value: () => T | undefined, ms = 15_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const v = value();
    if (v !== undefined) return v;
  }
  throw new Error(`never: ${what}`);
}

test("a webhook is told of an execution's end by a signed POST, retried after a 500; a receiver that hangs or is down never slows the run; another user sees none of it", async () => {
  const h = await startHarness({}, { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1", HARNESS_WEBHOOKS_RETRY_BASE_MS: "100" });
  const api = apiAs(h.server.url);
  const bob = apiAs(h.server.url, "bob");
  const good = await receiver([500]);
  const hanging = await receiver("hang");
  const down = await receiver([]);
  await down.close();
  try {
    const created = await api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url: good.url, events: ["execution.completed"] }) });
    assert.equal(created.status, 201);
    const { webhook } = await created.json();
    assert.equal(webhook.url, good.url);
    assert.deepEqual(webhook.events, ["execution.completed"]);
    assert.equal(webhook.enabled, true);
    assert.ok(typeof webhook.secret === "string" && webhook.secret.length >= 32, "a secret is made and shown once");
    for (const url of [hanging.url, down.url]) {
      assert.equal((await api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url, events: ["execution.completed", "execution.started"], secret: "a-secret-of-my-own-choosing" }) })).status, 201);
    }

    const listed = await (await api(`${V1}/webhooks`)).json();
    assert.equal(listed.webhooks.length, 3);
    assert.ok(listed.webhooks.every((w: Record<string, unknown>) => w.secret === undefined), "the secret is never shown again");
    const got = await (await api(`${V1}/webhooks/${webhook.id}`)).json();
    assert.equal(got.webhook.secret, undefined);
    assert.equal(got.webhook.url, good.url);

    // Another user's webhooks are as ones that never were.
    assert.deepEqual((await (await bob(`${V1}/webhooks`)).json()).webhooks, []);
    assert.equal((await bob(`${V1}/webhooks/${webhook.id}`)).status, 404);
    assert.equal((await bob(`${V1}/webhooks/${webhook.id}`, { method: "DELETE" })).status, 404);
    assert.equal((await bob(`${V1}/webhooks/${webhook.id}`, { method: "PATCH", body: JSON.stringify({ enabled: false }) })).status, 404);

    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    h.fake.push({ text: "Done." });
    const began = Date.now();
    const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hi", session_id: session.id }) });
    const executionId = stream.headers.get("x-execution-id");
    const events = await readSse(stream);
    assert.equal(events.at(-1)?.data.type, "done");
    // Held up, the run would have waited out the hanging receiver's attempt (10 s, ATTEMPT_TIMEOUT_MS).
    assert.ok(Date.now() - began < 10_000, `the run was not held up by the hanging receiver (${Date.now() - began} ms)`);
    assert.equal((await (await api(`${V1}/executions/${executionId}`)).json()).execution.status, "completed");

    // The 500 is retried: the same delivery, twice.
    const [first, second] = await until("the retry reached the receiver", () => (good.received.length >= 2 ? good.received : undefined));
    assert.equal(first.body, second.body);
    assert.equal(first.headers["x-openharness-delivery"], second.headers["x-openharness-delivery"]);
    assert.match(String(second.headers["content-type"]), /application\/json/);
    const payload = JSON.parse(second.body);
    assert.equal(payload.event, "execution.completed");
    assert.equal(payload.execution_id, executionId);
    assert.equal(payload.session_id, session.id);
    assert.equal(payload.status, "completed");
    assert.equal(payload.harness_id, "harness");
    assert.ok(payload.usage.output_tokens > 0);
    assert.ok(Math.abs(Date.parse(payload.timestamp) - Date.now()) < 60_000);
    // The signature verifies: HMAC-SHA256 of the raw body with the webhook's secret.
    const expected = `sha256=${createHmac("sha256", webhook.secret).update(second.body).digest("hex")}`;
    assert.equal(second.headers["x-openharness-signature"], expected);
    assert.equal(second.headers["x-openharness-event"], "execution.completed");
    assert.equal(second.headers["x-openharness-timestamp"], payload.timestamp);
    // The hanging receiver was asked too (and told of the start).
    await until("the hanging receiver was asked", () => (hanging.received.length >= 1 ? true : undefined));
    assert.equal(JSON.parse(hanging.received[0].body).event, "execution.started");

    // Disabled, then deleted: told of nothing more.
    const patched = await api(`${V1}/webhooks/${webhook.id}`, { method: "PATCH", body: JSON.stringify({ enabled: false }) });
    assert.equal(patched.status, 200);
    assert.equal((await patched.json()).webhook.enabled, false);
    h.fake.push({ text: "Again." });
    await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "again", session_id: session.id }) }));
    assert.equal((await api(`${V1}/webhooks/${webhook.id}`, { method: "DELETE" })).status, 204);
    assert.equal((await api(`${V1}/webhooks/${webhook.id}`)).status, 404);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(good.received.length, 2, "a disabled webhook is told of nothing");
  } finally {
    await good.close();
    await hanging.close();
    await h.close();
  }
});

test("a delivery whose receiver was down when the server stopped is sent by the next server: the same delivery, signed", async () => {
  // The retry is due long after the server is stopped, however slowly it stops.
  const h = await startHarness({}, { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1", HARNESS_WEBHOOKS_RETRY_BASE_MS: "6000" });
  const api = apiAs(() => h.server.url);
  const flaky = await receiver([503]);
  try {
    const { webhook } = await (await api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url: flaky.url, events: ["execution.completed"] }) })).json();
    h.fake.push({ text: "Done." });
    const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hi" }) });
    const executionId = stream.headers.get("x-execution-id");
    await readSse(stream);
    const [refused] = await until("the first attempt reached the receiver", () => (flaky.received.length >= 1 ? flaky.received : undefined));
    // Stopped before the retry is due, and started again on the same data.
    await h.server.stop();
    assert.equal(flaky.received.length, 1, "the retry was not due yet");
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });
    const [, again] = await until("the next server sent the delivery", () => (flaky.received.length >= 2 ? flaky.received : undefined), 25_000);
    assert.equal(again.headers["x-openharness-delivery"], refused.headers["x-openharness-delivery"]);
    assert.equal(again.body, refused.body);
    assert.equal(JSON.parse(again.body).execution_id, executionId);
    assert.equal(again.headers["x-openharness-signature"], `sha256=${createHmac("sha256", webhook.secret).update(again.body).digest("hex")}`);
    // Delivered: a third server sends nothing more.
    await h.server.stop();
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(flaky.received.length, 2);
  } finally {
    await flaky.close();
    await h.close();
  }
});

test("webhooks refuse URLs that are not HTTPS, carry credentials or name this machine or its network, and every bad field is named", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const register = (body: unknown) => api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify(body) });
  try {
    const refused: [unknown, RegExp][] = [
      [{ url: "http://example.com/hook", events: ["execution.completed"] }, /url.*https/i],
      [{ url: "https://user:pw@example.com/hook", events: ["execution.completed"] }, /url.*credentials/i],
      [{ url: "ftp://example.com/hook", events: ["execution.completed"] }, /url.*https/i],
      [{ url: "not a url", events: ["execution.completed"] }, /url/],
      [{ url: "https://127.0.0.1/hook", events: ["execution.completed"] }, /url.*HARNESS_WEBHOOKS_ALLOW_PRIVATE/],
      [{ url: "https://localhost:8443/hook", events: ["execution.completed"] }, /url.*HARNESS_WEBHOOKS_ALLOW_PRIVATE/],
      [{ url: "https://10.1.2.3/hook", events: ["execution.completed"] }, /url.*HARNESS_WEBHOOKS_ALLOW_PRIVATE/],
      [{ url: "https://[::1]/hook", events: ["execution.completed"] }, /url.*HARNESS_WEBHOOKS_ALLOW_PRIVATE/],
      [{ url: "https://169.254.169.254/latest", events: ["execution.completed"] }, /url.*HARNESS_WEBHOOKS_ALLOW_PRIVATE/],
      [{ url: "https://example.com/hook", events: [] }, /events/],
      [{ url: "https://example.com/hook", events: ["execution.exploded"] }, /events/],
      [{ url: "https://example.com/hook" }, /events/],
      [{ url: "https://example.com/hook", events: ["execution.completed"], secret: "short" }, /secret/],
      [{ url: "https://example.com/hook", events: ["execution.completed"], enabled: "yes" }, /enabled/],
      [{ url: "https://example.com/hook", events: ["execution.completed"], colour: "red" }, /colour/],
    ];
    for (const [body, message] of refused) {
      const response = await register(body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match((await response.json()).error.message, message, JSON.stringify(body));
    }
    assert.equal((await (await api(`${V1}/webhooks`)).json()).webhooks.length, 0);

    const created = await register({ url: "https://example.com/hook", events: ["execution.started", "execution.failed"], secret: "0123456789abcdef" });
    assert.equal(created.status, 201);
    const { webhook } = await created.json();
    assert.equal(webhook.secret, "0123456789abcdef");
    const bad = await api(`${V1}/webhooks/${webhook.id}`, { method: "PATCH", body: JSON.stringify({ url: "http://example.com/x" }) });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /url/);

    const caps = await (await api(`${V1}/capabilities`)).json();
    assert.ok(caps.capabilities.hooks.operations.includes("webhooks.register"));
  } finally {
    await h.close();
  }
});
