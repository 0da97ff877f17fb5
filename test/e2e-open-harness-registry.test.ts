// The Open Harness registry of a real `harness serve`: the administrator registers a hosted harness
// (a small local HTTP server stands in for its API), its health is asked of it, people's own tokens
// read the registry and change nothing, and the registration outlives a restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import { startHarnessServer } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { ANN_TOKEN } from "./open-harness-support.ts";

const ADMIN_TOKEN = "admin-token-0123456789abcdef";

/** The HTTP status a WebSocket handshake at `path` is refused with. */
function handshake(url: string, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}${path}`, { headers: { authorization: `Bearer ${token}` } });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("open", () => reject(new Error(`${path} was opened`)));
    ws.once("error", () => {});
  });
}

test("a hosted harness registered by the administrator answers its health through its own API, is read by everyone, and is still registered after a restart", async (t) => {
  const seen: string[] = [];
  const standIn = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === "/v1/harnesses/acme-cloud/health") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "healthy", version: "7.0.1", checks: [] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => standIn.close(resolve)));
  const baseUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/v1`;

  const tokens = await mkdtemp(join(tmpdir(), "harness-registry-tokens-"));
  t.after(() => rm(tokens, { recursive: true, force: true }));
  await writeFile(join(tokens, "tokens"), `ann ${ANN_TOKEN}\n`);
  const h = await startHarness({}, { HARNESS_TOKEN: ADMIN_TOKEN, HARNESS_TOKENS_FILE: join(tokens, "tokens") });
  t.after(() => h.close());
  const as = (token: string | undefined) => (path: string, init: RequestInit = {}) =>
    fetch(`${h.server.url}${path}`, { ...init, headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }), ...(token === ADMIN_TOKEN && { "x-harness-user": "admin" }) } });
  const admin = as(ADMIN_TOKEN);
  const ann = as(ANN_TOKEN);

  const registration = { id: "acme-cloud", name: "Acme Cloud", vendor: "Acme", description: "Acme's hosted agents", execution_type: "hosted", config: { base_url: baseUrl } };
  const byAnn = await ann("/v1/harnesses", { method: "POST", body: JSON.stringify(registration) });
  assert.equal(byAnn.status, 403);
  assert.match((await byAnn.json()).error.message, /administrator/);
  const made = await admin("/v1/harnesses", { method: "POST", body: JSON.stringify(registration) });
  assert.equal(made.status, 201);
  const { harness } = await made.json();
  assert.equal(harness.status, "active");

  const listed = await (await ann("/v1/harnesses")).json();
  assert.deepEqual(listed.data.map((x: { id: string }) => x.id), ["harness", "acme-cloud"]);
  const health = await (await ann("/v1/harnesses/acme-cloud/health")).json();
  assert.equal(health.status, "healthy");
  assert.equal(health.version, "7.0.1");
  assert.ok(health.checks.every((c: { status: string; latency_ms: unknown }) => c.status === "pass" && typeof c.latency_ms === "number"));
  assert.deepEqual(seen, ["GET /v1/harnesses/acme-cloud/health"]);
  assert.equal((await as(undefined)("/v1/harnesses/acme-cloud/health")).status, 401, "asking another server needs a token");
  assert.equal((await as(undefined)("/v1/harnesses/harness/health")).status, 200, "this server's own health stays open");
  const elsewhere = await ann("/v1/harnesses/acme-cloud/sessions");
  assert.equal(elsewhere.status, 421);
  assert.match((await elsewhere.json()).error.message, new RegExp(`acme-cloud.*${baseUrl.replace(/[.]/g, "\\.")}`));
  assert.equal(await handshake(h.server.url, "/v1/harnesses/acme-cloud/sessions/s1/connect", ANN_TOKEN), 421, "its sessions' channel is not here either");
  assert.equal((await admin("/v1/harnesses/harness", { method: "DELETE" })).status, 403);
  const put = await admin("/v1/harnesses/acme-cloud", { method: "PUT", body: "{}" });
  assert.equal(put.status, 404);
  assert.match((await put.json()).error.message, /no operation of the Open Harness API/, "a method the registry has not is no unknown harness");

  await h.server.stop();
  h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });
  assert.deepEqual((await (await ann("/v1/harnesses/acme-cloud")).json()).harness, harness);
  assert.equal((await ann("/v1/harnesses/acme-cloud", { method: "DELETE" })).status, 403);
  assert.equal((await admin("/v1/harnesses/acme-cloud", { method: "DELETE" })).status, 204);
  assert.equal((await ann("/v1/harnesses/acme-cloud")).status, 404);
  assert.equal((await ann("/v1/harnesses/acme-cloud/sessions")).status, 404);
});
