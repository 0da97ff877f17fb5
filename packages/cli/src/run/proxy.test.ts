// `harness run` behind a corporate proxy: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (upper or lower
// case, from the environment or the settings' env) carry the model's requests and WebFetch's, with
// the CA of NODE_EXTRA_CA_CERTS and the client certificate of CLAUDE_CODE_CLIENT_CERT / _KEY.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  startFakeAnthropic,
  startFakeAnthropicTls,
  startHttpProxy,
  TEST_CA_FILE,
  TEST_CLIENT_CERT_FILE,
  TEST_CLIENT_KEY_ENCRYPTED_FILE,
  TEST_CLIENT_KEY_PASSPHRASE,
  toolThenText,
} from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** No proxy variable of the machine running the tests leaks into a run. */
const NO_PROXY_SET = { HTTPS_PROXY: "", https_proxy: "", HTTP_PROXY: "", http_proxy: "", ALL_PROXY: "", all_proxy: "", NO_PROXY: "", no_proxy: "", NODE_EXTRA_CA_CERTS: "", CLAUDE_CODE_CLIENT_CERT: "", CLAUDE_CODE_CLIENT_KEY: "", CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: "" };
const MODEL = ["--model", "claude-sonnet-4-6"];

async function proxyFor(t: { after(fn: () => unknown): void }) {
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  return proxy;
}

/** The fake's URL under a name only the proxy resolves: a run that reaches it went through it. */
const viaName = (url: string) => url.replace("127.0.0.1", "model.test");

test("HTTP_PROXY, or http_proxy, carries the model's requests; NO_PROXY lets the hosts it lists go direct", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "through the proxy" }, { text: "lower case" }, { text: "direct" }] }));
  const proxy = await proxyFor(t);
  const dir = tempDir(t);
  const env = { ...NO_PROXY_SET, ANTHROPIC_API_KEY: "k" };
  const upper = await harness(["run", "--cwd", dir, ...MODEL, "hi"], { ...env, ANTHROPIC_BASE_URL: viaName(fake.url), HTTP_PROXY: proxy.url }).result;
  assert.equal(upper.code, 0, upper.stderr);
  assert.equal(upper.stdout.trim(), "through the proxy");
  assert.deepEqual(proxy.seen, [{ method: "POST", target: `${viaName(fake.url)}/v1/messages` }]);

  const lower = await harness(["run", "--cwd", dir, ...MODEL, "hi"], { ...env, ANTHROPIC_BASE_URL: viaName(fake.url), http_proxy: proxy.url.replace("//", "//me:secret@") }).result;
  assert.equal(lower.code, 0, lower.stderr);
  assert.equal(proxy.seen.length, 2);
  assert.equal(proxy.seen[1]!.authorization, `Basic ${Buffer.from("me:secret").toString("base64")}`);

  const direct = await harness(["run", "--cwd", dir, ...MODEL, "hi"], { ...env, ANTHROPIC_BASE_URL: fake.url, HTTP_PROXY: proxy.url, NO_PROXY: "localhost,127.0.0.1" }).result;
  assert.equal(direct.code, 0, direct.stderr);
  assert.equal(direct.stdout.trim(), "direct");
  assert.equal(proxy.seen.length, 2, "NO_PROXY kept the request away from the proxy");
  assert.equal(fake.requests.length, 3);
});

test("the proxy set in the user's settings' env carries the model's requests", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const proxy = await proxyFor(t);
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: { HTTP_PROXY: proxy.url } }));
  const run = await harness(["run", "--cwd", tempDir(t), ...MODEL, "hi"], { ...NO_PROXY_SET, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: viaName(fake.url) }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(proxy.seen, [{ method: "POST", target: `${viaName(fake.url)}/v1/messages` }]);
});

test("WebFetch goes through the proxy", async (t) => {
  const site = createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("the page behind the proxy"));
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  t.after(() => site.close());
  const page = `http://pages.test:${(site.address() as AddressInfo).port}/notes.txt`;
  const fake = await withFake(t, startFakeAnthropic({ replies: toolThenText("WebFetch", { url: page, prompt: "what does it say?" }, "done") }));
  const proxy = await proxyFor(t);
  const run = await harness(["run", "--cwd", tempDir(t), ...MODEL, "--allowedTools", "WebFetch", "read the page"], {
    ...NO_PROXY_SET,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    HTTP_PROXY: proxy.url,
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.ok(proxy.seen.some((seen) => seen.method === "GET" && seen.target === page), JSON.stringify(proxy.seen));
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /the page behind the proxy/);
});

test("a proxy URL that cannot be used stops the run at once, naming the variable and hiding its password", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const run = await harness(["run", "--cwd", tempDir(t), ...MODEL, "hi"], { ...NO_PROXY_SET, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, https_proxy: "me:secret@proxy.corp:3128" }).result;
  assert.equal(run.code, 1);
  assert.match(run.stderr, /https_proxy is not a usable proxy URL \(\*\*\*@proxy\.corp:3128\): it needs its scheme, as in http:\/\/proxy\.example\.com:3128/);
  assert.doesNotMatch(run.stderr, /secret/);
  assert.equal(fake.requests.length, 0);

  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: { HTTPS_PROXY: "socks5://proxy.corp:1080" } }));
  const fromSettings = await harness(["run", "--cwd", tempDir(t), ...MODEL, "hi"], { ...NO_PROXY_SET, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(fromSettings.code, 1);
  assert.match(fromSettings.stderr, /HTTPS_PROXY is not a usable proxy URL \(socks5:\/\/proxy\.corp:1080\): only http:\/\/ and https:\/\/ proxies are supported/);
  assert.equal(fake.requests.length, 0);
});

test("an https:// endpoint through a CONNECT proxy, with a certificate from the company's own CA: NODE_EXTRA_CA_CERTS makes it trusted, and its commands see the variable", async (t) => {
  const fake = await withFake(t, startFakeAnthropicTls({ replies: toolThenText("Bash", { command: "printenv NODE_EXTRA_CA_CERTS" }, "through the tunnel") }));
  const proxy = await proxyFor(t);
  const endpoint = fake.url.replace("localhost", "model.test");
  const env = { ...NO_PROXY_SET, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: endpoint, HTTPS_PROXY: proxy.url };
  const run = await harness(["run", "--cwd", tempDir(t), ...MODEL, "--allowedTools", "Bash", "hi"], { ...env, NODE_EXTRA_CA_CERTS: TEST_CA_FILE }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "through the tunnel");
  // One tunnel, kept alive, may carry both requests.
  assert.ok(proxy.seen.length >= 1, "the requests went through the proxy");
  for (const seen of proxy.seen) assert.deepEqual(seen, { method: "CONNECT", target: endpoint.replace("https://", "") });
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), new RegExp(TEST_CA_FILE.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
});

test("an https:// endpoint whose certificate is not trusted fails the run saying so and naming NODE_EXTRA_CA_CERTS", async (t) => {
  const fake = await withFake(t, startFakeAnthropicTls({ replies: [{ text: "never" }] }));
  const proxy = await proxyFor(t);
  const run = await harness(["run", "--cwd", tempDir(t), ...MODEL, "hi"], { ...NO_PROXY_SET, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HTTPS_PROXY: proxy.url, HARNESS_MODEL_RETRIES: "3" }).result;
  assert.equal(run.code, 1);
  assert.match(run.stderr, /certificate/i);
  assert.match(run.stderr, /NODE_EXTRA_CA_CERTS/);
  assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
  assert.equal(proxy.seen.length, 1, "a certificate the client does not trust is not tried again");
  assert.equal(fake.requests.length, 0);
});

test("NODE_EXTRA_CA_CERTS and a client certificate given only in the user's settings' env reach a gateway that demands mutual TLS; a CA file that is not there stops the run naming it", async (t) => {
  const fake = await withFake(t, startFakeAnthropicTls({ replies: [{ text: "mutual TLS from settings" }] }, { requireClientCert: true }));
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  const settings = join(home, ".claude", "settings.json");
  const tls = { NODE_EXTRA_CA_CERTS: TEST_CA_FILE, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_ENCRYPTED_FILE, CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: TEST_CLIENT_KEY_PASSPHRASE };
  writeFileSync(settings, JSON.stringify({ env: tls }));
  const env = { ...NO_PROXY_SET, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const run = await harness(["run", "--cwd", tempDir(t), ...MODEL, "hi"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "mutual TLS from settings");

  const missing = join(home, "corp-ca.pem");
  writeFileSync(settings, JSON.stringify({ env: { ...tls, NODE_EXTRA_CA_CERTS: missing } }));
  const failed = await harness(["run", "--cwd", tempDir(t), ...MODEL, "hi"], env).result;
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, new RegExp(`NODE_EXTRA_CA_CERTS names a file that cannot be read \\(${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\): there is no such file`));
  assert.equal(fake.requests.length, 1);
});
