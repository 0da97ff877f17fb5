// Under `harness serve`, the runners get the server's proxy variables: a session's model requests
// go through HTTPS_PROXY / HTTP_PROXY as `harness run`'s do, and trust the CA of NODE_EXTRA_CA_CERTS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, startFakeAnthropic, startFakeAnthropicTls, startHarnessServer, startHttpProxy, TEST_CA_FILE } from "@harness/test-utils";

test("a session's model requests go through the server's HTTP_PROXY", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "through the proxy" }] });
  t.after(() => fake.close());
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  const dataDir = await mkdtemp(join(tmpdir(), "harness-proxy-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  // Only the proxy knows model.test: a request that reaches the fake went through it.
  const baseUrl = fake.url.replace("127.0.0.1", "model.test");
  const server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: baseUrl, HTTP_PROXY: proxy.url, HTTPS_PROXY: "", http_proxy: "", https_proxy: "", NO_PROXY: "", no_proxy: "", HARNESS_MODEL_RETRIES: "0" },
  });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "proxied", sessionId: "one" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "submit", prompt: "hi" });
  await client.waitForState((s) => s.status !== "running" && s.messages[1]?.status !== undefined && s.messages[1].status !== "running", 30_000, "the run to end");
  const state = client.state!;
  assert.equal(state.messages[1]?.content, "through the proxy", JSON.stringify(state));
  assert.ok(proxy.seen.some((seen) => seen.method === "POST" && seen.target === `${baseUrl}/v1/messages`), JSON.stringify(proxy.seen));
});

test("a session reaches an https:// endpoint through the server's HTTPS_PROXY, trusting the CA its NODE_EXTRA_CA_CERTS names", async (t) => {
  const fake = await startFakeAnthropicTls({ replies: [{ toolUses: [{ name: "Bash", input: { command: "printenv NODE_EXTRA_CA_CERTS" } }] }, { text: "through the tunnel" }] });
  t.after(() => fake.close());
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  const dataDir = await mkdtemp(join(tmpdir(), "harness-proxy-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  // Only the proxy knows model.test, and the certificate names it.
  const baseUrl = fake.url.replace("localhost", "model.test");
  const server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: baseUrl, HTTPS_PROXY: proxy.url, HTTP_PROXY: "", http_proxy: "", https_proxy: "", ALL_PROXY: "", all_proxy: "", NO_PROXY: "", no_proxy: "", NODE_EXTRA_CA_CERTS: TEST_CA_FILE, HARNESS_MODEL_RETRIES: "0" },
  });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "proxied", sessionId: "tls" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } });
  client.send({ type: "submit", prompt: "hi" });
  await client.waitForState((s) => s.status !== "running" && s.messages[1]?.status !== undefined && s.messages[1].status !== "running", 30_000, "the run to end");
  const state = client.state!;
  assert.equal(state.messages[1]?.content, "through the tunnel", JSON.stringify(state));
  assert.equal(state.messages[1]?.toolCalls?.[0]?.output?.trim(), TEST_CA_FILE, "the runner's commands see the variable");
  assert.ok(proxy.seen.length >= 1 && proxy.seen.every((seen) => seen.method === "CONNECT" && seen.target === baseUrl.replace("https://", "")), JSON.stringify(proxy.seen));
});
