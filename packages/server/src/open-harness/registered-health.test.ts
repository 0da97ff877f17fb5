import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { testDir } from "../test-helpers.ts";
import { ACME, registryApp } from "./registry-test-app.ts";
import { isOpenHealthCheck } from "./routes-harnesses.ts";

/** A stand-in for a hosted harness's API on a local port, answering with `answer`; its requests' paths. */
async function standIn(t: { after(fn: () => unknown): void }, answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

test("a hosted harness's health is asked of its own API, each check passed or failed with its latency", async (t) => {
  const { call } = await registryApp(t);
  const remote = await standIn(t, (req, res) => json(res, 200, { status: "healthy", latency_ms: 1, version: "4.2.0", checks: [{ name: "db", status: "pass" }] }));
  await call("POST", "/harnesses", { ...ACME, config: { base_url: remote.url } });
  const health = (await call("GET", "/harnesses/acme-cloud/health")).json;
  assert.deepEqual(remote.seen, ["GET /v1/harnesses/acme-cloud/health"]);
  assert.equal(health.status, "healthy");
  assert.equal(health.version, "4.2.0");
  assert.equal(typeof health.latency_ms, "number");
  assert.deepEqual(health.checks.map((c: { name: string; status: string }) => [c.name, c.status]), [["reachable", "pass"], ["health_endpoint", "pass"], ["harness", "pass"]]);
  for (const check of health.checks) assert.equal(typeof check.latency_ms, "number");
});

test("a hosted harness that says it is degraded, answers 503, redirects, answers too much or no JSON, or is not there, is not healthy, saying why", async (t) => {
  const { call } = await registryApp(t);
  const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, string, RegExp][] = [
    ["degraded", (_req, res) => json(res, 200, { status: "degraded", checks: [{ name: "queue", status: "fail" }] }), "degraded", /degraded.*queue/],
    ["down", (_req, res) => json(res, 503, { status: "unhealthy" }), "unhealthy", /answered 503/],
    ["moved", (_req, res) => res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end(), "unhealthy", /redirect.*not followed/],
    ["huge", (_req, res) => json(res, 200, { status: "healthy", padding: "x".repeat(200_000) }), "unhealthy", /more than/],
    ["html", (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>hi</html>"), "unhealthy", /no JSON/],
  ];
  for (const [id, answer, status, why] of cases) {
    const remote = await standIn(t, answer);
    await call("POST", "/harnesses", { ...ACME, id, config: { base_url: remote.url } });
    const health = (await call("GET", `/harnesses/${id}/health`)).json;
    assert.equal(health.status, status, id);
    const failed = health.checks.find((c: { status: string }) => c.status === "fail");
    assert.match(failed.message, why, id);
  }
  await call("POST", "/harnesses", { ...ACME, id: "gone", config: { base_url: "http://127.0.0.1:9/v1" } });
  const health = (await call("GET", "/harnesses/gone/health")).json;
  assert.equal(health.status, "unhealthy");
  assert.deepEqual(health.checks.map((c: { name: string; status: string }) => [c.name, c.status]), [["reachable", "fail"]]);
  assert.match(health.checks[0].message, /127\.0\.0\.1:9/);
});

test("an sdk or ide harness's health is what this machine can check of it, said plainly", async (t) => {
  const { call } = await registryApp(t);
  const dir = await testDir(t);
  const binary = join(dir, "acme");
  await writeFile(binary, "#!/bin/sh\n");
  await chmod(binary, 0o755);
  const plain = join(dir, "plain");
  await writeFile(plain, "");
  await mkdir(join(dir, "skills"));
  await call("POST", "/harnesses", { ...ACME, id: "cli", execution_type: "sdk", config: { binary_path: binary, skills_path: join(dir, "skills") } });
  let health = (await call("GET", "/harnesses/cli/health")).json;
  assert.equal(health.status, "healthy");
  assert.deepEqual(health.checks.map((c: { name: string; status: string }) => [c.name, c.status]), [["binary_path", "pass"], ["skills_path", "pass"]]);
  assert.match(health.message, /sdk harness.*this machine/);

  await call("PATCH", "/harnesses/cli", { config: { binary_path: plain, skills_path: join(dir, "none") } });
  health = (await call("GET", "/harnesses/cli/health")).json;
  assert.equal(health.status, "unhealthy");
  assert.match(health.checks[0].message, /not executable/);
  assert.match(health.checks[1].message, /does not exist/);

  await call("POST", "/harnesses", { ...ACME, id: "editor", execution_type: "ide", config: {} });
  health = (await call("GET", "/harnesses/editor/health")).json;
  assert.equal(health.status, "degraded");
  assert.deepEqual(health.checks, []);
  assert.match(health.message, /nothing.*checked/);
  await call("POST", "/harnesses", { ...ACME, id: "no-url", config: {} });
  assert.match((await call("GET", "/harnesses/no-url/health")).json.message, /no config\.base_url/);
});

test("a hosted harness's capabilities are asked of it and kept; others' are unknown, said so", async (t) => {
  const { call } = await registryApp(t);
  const manifest = { agents: { supported: true, operations: ["agents.list"] }, files: { supported: false, operations: [] } };
  const remote = await standIn(t, (_req, res) => json(res, 200, { harness_id: "acme-cloud", harness_name: "Acme", version: "4.2.0", capabilities: manifest }));
  await call("POST", "/harnesses", { ...ACME, config: { base_url: remote.url } });
  const answered = (await call("GET", "/harnesses/acme-cloud/capabilities")).json;
  assert.deepEqual(remote.seen, ["GET /v1/harnesses/acme-cloud/capabilities"]);
  assert.deepEqual(answered, { harness_id: "acme-cloud", harness_name: "Acme Cloud", version: "4.2.0", capabilities: manifest });
  const { harness } = (await call("GET", "/harnesses/acme-cloud")).json;
  assert.deepEqual(harness.capabilities, manifest);
  assert.equal(harness.version, "4.2.0");

  const odd = await standIn(t, (_req, res) => json(res, 200, { capabilities: { agents: { supported: "yes" } } }));
  await call("PATCH", "/harnesses/acme-cloud", { config: { base_url: odd.url } });
  const refused = await call("GET", "/harnesses/acme-cloud/capabilities");
  assert.equal(refused.status, 502);
  assert.match(refused.json.error.message, /acme-cloud.*agents/);
  assert.deepEqual((await call("GET", "/harnesses/acme-cloud")).json.harness.capabilities, manifest, "what it last answered is kept");

  await call("POST", "/harnesses", { ...ACME, id: "cli", execution_type: "sdk", config: {} });
  const unknown = (await call("GET", "/harnesses/cli/capabilities")).json;
  assert.deepEqual(unknown.capabilities, {});
  assert.match(unknown.message, /unknown/);
});

test("only this server's own health check is open without a token: a registered one asks another server", () => {
  assert.equal(isOpenHealthCheck("GET", "/v1/harnesses/harness/health"), true);
  assert.equal(isOpenHealthCheck("GET", "/v1/harnesses/acme-cloud/health"), false);
});
