import { test } from "node:test";
import assert from "node:assert/strict";
import { createHarnessClient, type ClientOptions } from "./client.ts";
import { fakeServer } from "./test-helpers.ts";

const good: ClientOptions = { url: "http://127.0.0.1:7700", userId: "me", sessionId: "first" };

test("options the server would refuse, or that would name another session, are said when the client is made, not as a failed handshake", () => {
  const cases: [Partial<Record<keyof ClientOptions, unknown>>, string][] = [
    [{ sessionId: undefined }, `sessionId: is required`],
    [{ sessionId: "" }, `sessionId: must be 1 to 128 letters, digits, '.', '_' or '-', got ""`],
    [{ sessionId: "a/b" }, `sessionId: must be 1 to 128 letters, digits, '.', '_' or '-', got "a/b"`],
    [{ sessionId: ".." }, `sessionId: must not be '.' or '..', got ".."`],
    [{ userId: "" }, `userId: must be 1 to 128 letters, digits, '.', '_' or '-', got ""`],
    [{ userId: 7 }, `userId: must be a string, got 7`],
    [{ url: "127.0.0.1:7700" }, `url: is not a URL such as http://127.0.0.1:7700, got "127.0.0.1:7700"`],
    [{ url: "localhost:7700" }, `url: must be http(s) or ws(s), got "localhost:7700"`],
    [{ url: "ftp://127.0.0.1:7700" }, `url: must be http(s) or ws(s), got "ftp://127.0.0.1:7700"`],
    [{ url: "ws://127.0.0.1:7700/ws?userId=me&sessionId=first" }, `url: is the server's address without a query (userId, sessionId and token are options of their own), got "ws://127.0.0.1:7700/ws?userId=me&sessionId=first"`],
    [{ token: "" }, `token: must be a non-empty string when given`],
    [{ reconnect: { maxAttempts: -1 } }, `reconnect.maxAttempts: must be a whole number of at least 1, got -1`],
    [{ reconnect: { minDelayMs: 10, maxDelayMs: 5 } }, `reconnect.maxDelayMs: must be at least minDelayMs (10), got 5`],
  ];
  for (const [change, message] of cases) {
    assert.throws(() => createHarnessClient({ ...good, ...change } as ClientOptions), { message }, JSON.stringify(change));
  }
});

test("a client made with good options opens the socket the options name", async () => {
  const server = fakeServer();
  const client = createHarnessClient({ ...good, url: "https://example.com/harness/", token: "t", reconnect: { minDelayMs: 1, maxDelayMs: 1, maxAttempts: 1 }, webSocket: server.factory });
  client.connect().catch(() => {});
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(server.sockets[0].url, "wss://example.com/harness/ws?userId=me&sessionId=first&token=t");
  client.close();
});
