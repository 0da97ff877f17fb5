import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { diagnoseConnectFailure } from "./diagnose.ts";

/** An HTTP server answering GET `path` with `status` and `body`, 404 elsewhere. */
async function serving(t: { after(fn: () => unknown): void }, answers: Record<string, [number, unknown]>): Promise<string> {
  const server: Server = createServer((req, res) => {
    const [status, body] = answers[req.url ?? ""] ?? [404, { error: `not found: GET ${req.url}` }];
    res.writeHead(status, { "content-type": typeof body === "string" ? "text/html" : "application/json" });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const failure = "the WebSocket handshake failed (code 1006)";

test("a URL with a path too many is told where the server is", async (t) => {
  const url = await serving(t, { "/health": [200, { ok: true }] });
  assert.equal(await diagnoseConnectFailure(`${url}/harness`, undefined, failure), `no Harness server at ${url}/harness, but there is one at ${url}: leave the path out of --url (or HARNESS_URL)`);
});

test("another program on the port is not taken for a server refusing the token", async (t) => {
  const url = await serving(t, { "/": [200, "<html>a web app</html>"] });
  assert.equal(await diagnoseConnectFailure(url, undefined, failure), `what answers at ${url} is not a Harness server (GET /health: 404): give --url (or HARNESS_URL) the address \`harness serve\` printed`);
  const html = await serving(t, { "/health": [200, "<html>healthy</html>"] });
  assert.match(await diagnoseConnectFailure(html, undefined, failure), /is not a Harness server \(GET \/health: 200\)/);
});

test("a server that refuses says why in its own words; one that answers leaves the failure as it was", async (t) => {
  const refusing = await serving(t, { "/health": [403, { error: 'refused a request for host "box.lan": without HARNESS_TOKEN this server answers only loopback names' }] });
  assert.equal(await diagnoseConnectFailure(refusing, undefined, failure), `the server at ${refusing} refused: refused a request for host "box.lan": without HARNESS_TOKEN this server answers only loopback names`);
  const fine = await serving(t, { "/health": [200, { ok: true }] });
  assert.equal(await diagnoseConnectFailure(fine, undefined, failure), failure);
  const token = await serving(t, { "/health": [401, { error: "unauthorized" }] });
  assert.equal(await diagnoseConnectFailure(token, "x", failure), `the server at ${token} refused the token: set HARNESS_TOKEN to the token it was started with`);
});
