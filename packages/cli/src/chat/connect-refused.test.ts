// `harness chat` against a server that refuses it: what the chat says, and that it asks the
// server why only once (the client SDK's question is the chat's answer).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { pipedChat } from "../test-support.ts";

/** An HTTP server answering GET /health with `status` and `body`, refusing WebSocket upgrades
 * with the same status; counts the /health requests. */
async function refusing(t: { after(fn: () => unknown): void }, status: number, body: unknown): Promise<{ url: string; asked: () => number }> {
  let asked = 0;
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/health")) asked++;
    res.writeHead(req.url?.startsWith("/health") ? status : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  server.on("upgrade", (_req, socket) => socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, asked: () => asked };
}

test("a refused token is told in the chat's words, the server asked why once", async (t) => {
  const server = await refusing(t, 401, { error: "missing or wrong token" });
  const none = await pipedChat(server.url, ["--session", "s"], "", { HARNESS_TOKEN: "" });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /: the server at http:\/\/127\.0\.0\.1:\d+ needs a token: set HARNESS_TOKEN to the token it was started with\n$/);
  assert.equal(server.asked(), 1);
  const wrong = await pipedChat(server.url, ["--session", "s"], "", { HARNESS_TOKEN: "not-the-right-token" });
  assert.match(wrong.stderr, /: the server at http:\/\/127\.0\.0\.1:\d+ refused the token: set HARNESS_TOKEN to the token it was started with\n$/);
  assert.equal(server.asked(), 2);
});

test("something that is no Harness server is named as such, asked once", async (t) => {
  const server = await refusing(t, 404, { nothing: "here" });
  const result = await pipedChat(server.url, ["--session", "s"], "", { HARNESS_TOKEN: "" });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /: what answers at http:\/\/127\.0\.0\.1:\d+ is not a Harness server \(GET \/health: 404\)/);
  // The server's root is the URL itself: nothing else to ask.
  assert.equal(server.asked(), 1);
});

test("a server's refusal in its own words is passed on", async (t) => {
  const server = await refusing(t, 403, { error: 'refused a request for host "box.lan"' });
  const result = await pipedChat(server.url, ["--session", "s"], "", { HARNESS_TOKEN: "" });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /: the server at http:\/\/127\.0\.0\.1:\d+ refused: refused a request for host "box\.lan"\n$/);
  assert.equal(server.asked(), 1);
});
