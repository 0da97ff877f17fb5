import { test } from "node:test";
import assert from "node:assert/strict";
import { HarnessClient } from "./client.ts";
import { fakeServer, type FakeSocket } from "./test-helpers.ts";
import type { HarnessState } from "@harness/protocol";

const state: HarnessState = { status: "idle", messages: [] };
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `ready()` holds; fails after 5 s naming `what` (a busy machine may take a while). */
async function until(ready: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`never ${what}`);
    await tick(1);
  }
}

/** A client on a fake server, connected at seq 1, that takes `silenceMs` of silence for death. */
async function connected(silenceMs: number, factory?: (server: ReturnType<typeof fakeServer>) => (url: string) => FakeSocket) {
  const server = fakeServer();
  const client = new HarnessClient({
    url: "http://h", userId: "u", sessionId: "s", silenceMs, reconnect: { minDelayMs: 1, maxDelayMs: 2 },
    webSocket: factory ? factory(server) : server.factory,
  });
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  return { server, client };
}

/** A page for the duration of test `t`: globalThis gets a document and window events, as in a
 * browser. `listening()` counts the listeners added to either and not removed yet. */
function fakePage(t: { after(fn: () => void): void }) {
  const global = globalThis as { document?: unknown; addEventListener?: unknown; removeEventListener?: unknown };
  const window = new EventTarget();
  const document = Object.assign(new EventTarget(), { visibilityState: "visible" });
  const added = new Set<unknown>();
  const counted = (target: EventTarget) => {
    const add = target.addEventListener.bind(target);
    const remove = target.removeEventListener.bind(target);
    return {
      addEventListener(type: string, listener: () => void) {
        added.add(listener);
        add(type, listener);
      },
      removeEventListener(type: string, listener: () => void) {
        added.delete(listener);
        remove(type, listener);
      },
    };
  };
  global.document = Object.assign(document, counted(document));
  Object.assign(global, counted(window));
  t.after(() => {
    delete global.document;
    delete global.addEventListener;
    delete global.removeEventListener;
  });
  return {
    show(visibilityState: "visible" | "hidden") {
      document.visibilityState = visibilityState;
      document.dispatchEvent(new Event("visibilitychange"));
    },
    online: () => window.dispatchEvent(new Event("online")),
    listening: () => added.size,
  };
}

test("silenceMs that is not a whole number of milliseconds is refused, naming it", () => {
  for (const silenceMs of [-1, 1.5, Number.NaN, 2 ** 31]) {
    assert.throws(() => new HarnessClient({ url: "http://h", userId: "u", sessionId: "s", silenceMs }), {
      message: `silenceMs must be a whole number of milliseconds from 0 to 2147483647, got ${silenceMs}`,
    });
  }
});

test("where pings can be seen, a connection that hears them stays, and one silent for silenceMs is reconnected with since", async (t) => {
  const { server, client } = await connected(1_000, (server) => (url) => {
    const socket = server.factory(url);
    const listeners = new Set<() => void>();
    return Object.assign(socket, {
      on: (_event: "ping", listener: () => void) => listeners.add(listener),
      off: (_event: "ping", listener: () => void) => listeners.delete(listener),
      ping: () => listeners.forEach((listener) => listener()),
    });
  });
  t.after(() => client.close());
  const pinged = server.sockets[0] as FakeSocket & { ping(): void };
  // Pings 50 ms apart for longer than silenceMs: only a stall of 950 ms would cut the connection.
  for (let i = 0; i < 25; i++) {
    pinged.ping();
    await tick(50);
  }
  assert.equal(server.sockets.length, 1, "pings keep a connection without frames");
  const started = Date.now();
  while (server.sockets.length < 2 && Date.now() - started < 5_000) await tick(1);
  assert.ok(Date.now() - started >= 900, "dropped once silent for 1,000 ms, not sooner");
  assert.equal(server.sockets.length, 2);
  assert.match(server.sockets[1].url, /since=1/);
  server.sockets[1].serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["status"], value: "running" }] });
  assert.equal(client.state?.status, "running");
});

test("in a browser, a quiet connection is kept until the page is shown again after silenceMs, then reconnected with since", async (t) => {
  const page = fakePage(t);
  const { server, client } = await connected(50);
  t.after(() => client.close());
  await tick(80);
  assert.equal(server.sockets.length, 1, "pings cannot be seen: a quiet connection is not cut by a timer");
  page.show("hidden");
  await tick();
  assert.equal(server.sockets.length, 1);
  page.show("visible");
  await until(() => server.sockets.length === 2, "reconnected once the page was shown again");
  assert.match(server.sockets[1].url, /since=1/);

  // A frame arrived lately: coming back to the page keeps the connection.
  server.sockets[1].serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["status"], value: "running" }] });
  page.show("hidden");
  page.show("visible");
  await tick(20);
  assert.equal(server.sockets.length, 2);
  client.close();
});

test("in a browser, the network coming back reconnects with since, and a closed client listens no more", async (t) => {
  const page = fakePage(t);
  const { server, client } = await connected(60_000);
  t.after(() => client.close());
  page.online();
  await until(() => server.sockets.length === 2 && client.connection === "open", "reconnected once the network came back");
  assert.match(server.sockets[1].url, /since=1/);
  assert.ok(page.listening() > 0, "the open connection is watched");
  client.close();
  assert.equal(page.listening(), 0, "close() removes the page's listeners");
  page.online();
  page.show("visible");
  await tick(20);
  assert.equal(server.sockets.length, 2);
  assert.equal(client.connection, "closed");
});

test("in a browser, the network coming back or the page shown again leaves a handshake under way alone", async (t) => {
  const page = fakePage(t);
  const server = fakeServer(false);
  const errors: string[] = [];
  const client = new HarnessClient({
    url: "http://h", userId: "u", sessionId: "s", silenceMs: 20, reconnect: { minDelayMs: 1, maxDelayMs: 2, maxAttempts: 1 },
    webSocket: server.factory,
  });
  t.after(() => client.close());
  client.on("error", (error) => errors.push(error.message));
  const disturb = async () => {
    await tick(40);
    page.online();
    page.show("hidden");
    page.show("visible");
    await tick();
  };

  const connecting = client.connect();
  await disturb();
  assert.equal(server.sockets.length, 1);
  assert.equal(client.connection, "connecting");
  server.sockets[0].open();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  assert.deepEqual(await connecting, state);

  server.sockets[0].drop();
  while (server.sockets.length < 2) await tick(1);
  await disturb();
  assert.equal(server.sockets.length, 2);
  assert.equal(client.connection, "reconnecting");
  server.sockets[1].open();
  assert.equal(client.connection, "open");
  assert.match(server.sockets[1].url, /since=1/);
  assert.deepEqual(errors, [], "the handshake was not counted as a failed attempt");
  client.close();
  assert.equal(page.listening(), 0);
});
