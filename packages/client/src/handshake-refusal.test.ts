import { test } from "node:test";
import assert from "node:assert/strict";
import { HarnessClient, type ServerError } from "./client.ts";
import { fakeServer, type FakeSocket } from "./test-helpers.ts";

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** A client connected to a fake server, with the errors it reports; `fetch` for its /health. */
async function connected(fetch?: typeof globalThis.fetch) {
  // Sockets open only when told: those after the first are refused.
  const server = fakeServer(false);
  const client = new HarnessClient({ url: "https://h/base", userId: "u", sessionId: "s", token: "t0k", webSocket: server.factory, reconnect: { minDelayMs: 1, maxDelayMs: 2 }, ...(fetch && { fetch }) });
  const errors: ServerError[] = [];
  client.on("error", (error) => errors.push(error));
  const connecting = client.connect();
  server.sockets[0].open();
  server.sockets[0].serve({ type: "state", state: { status: "idle", messages: [] }, seq: 1 });
  await connecting;
  return { server, client, errors };
}

/** The handshake of the socket being opened, or of the next one, fails, its error saying `message`. */
async function refuseNext(sockets: FakeSocket[], message: string): Promise<void> {
  while (sockets.at(-1)!.readyState !== 0) await tick(1);
  const socket = sockets.at(-1)!;
  socket.onerror?.({ message });
  socket.drop(1006);
}

test("a refusal the WebSocket names (the ws package's) ends reconnecting when retrying cannot change it", async () => {
  const { server, client, errors } = await connected();
  server.sockets[0].drop(1006);
  await refuseNext(server.sockets, "Unexpected server response: 503");
  await refuseNext(server.sockets, "Unexpected server response: 403");
  await tick();
  assert.equal(client.connection, "closed");
  assert.deepEqual(errors.map((e) => e.message), [
    "could not reconnect to wss://h/base/ws?userId=u&sessionId=s&token=…&since=1: the server refused the WebSocket handshake (503): the server is shutting down; trying again",
    "could not reconnect to wss://h/base/ws?userId=u&sessionId=s&token=…&since=1: the server refused the WebSocket handshake (403): the token is another user's, or this page's origin is not among the server's HARNESS_ALLOWED_ORIGINS; gave up: retrying cannot change that",
  ]);
});

test("a handshake that fails saying nothing is asked about at GET /health: a refused token ends reconnecting, no answer does not", async () => {
  const asked: { url: string; headers: Record<string, string> }[] = [];
  let answer: () => Response = () => {
    throw new TypeError("fetch failed");
  };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    asked.push({ url: String(input), headers: Object.fromEntries(new Headers(init?.headers).entries()) });
    return answer();
  };
  const { server, client, errors } = await connected(fetch);
  server.sockets[0].drop(1006);
  await refuseNext(server.sockets, "");
  await tick();
  assert.equal(client.connection, "reconnecting");
  answer = () => Response.json({ error: "missing or wrong token: send Authorization: Bearer <token> or ?token=<token>" }, { status: 401 });
  await refuseNext(server.sockets, "");
  await tick();
  assert.equal(client.connection, "closed");
  assert.deepEqual(asked, [
    { url: "https://h/base/health", headers: { authorization: "Bearer t0k", "x-harness-user": "u" } },
    { url: "https://h/base/health", headers: { authorization: "Bearer t0k", "x-harness-user": "u" } },
  ]);
  assert.match(errors[0].message, /handshake failed \(code 1006\): nothing answers there, .*; trying again$/);
  assert.equal(errors[1].message, "could not reconnect to wss://h/base/ws?userId=u&sessionId=s&token=…&since=1: the server refused the WebSocket handshake (401): missing or wrong token: send Authorization: Bearer <token> or ?token=<token>; gave up: retrying cannot change that");
});

test("an answer from /health that comes after close() is not acted on", async () => {
  let answer!: (response: Response) => void;
  const { server, client, errors } = await connected(() => new Promise((resolve) => (answer = resolve)));
  server.sockets[0].drop(1006);
  await refuseNext(server.sockets, "");
  client.close();
  answer(Response.json({ error: "missing or wrong token" }, { status: 401 }));
  await tick();
  assert.equal(client.connection, "closed");
  assert.deepEqual(errors, []);
});
