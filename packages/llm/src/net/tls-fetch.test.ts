// fetchFor(env) and the TLS variables of a run's environment: NODE_EXTRA_CA_CERTS read from the run's
// environment (not only the process's, which Node reads at start) and Claude Code's client
// certificate for mutual TLS (CLAUDE_CODE_CLIENT_CERT, CLAUDE_CODE_CLIENT_KEY,
// CLAUDE_CODE_CLIENT_KEY_PASSPHRASE).
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { rootCertificates } from "node:tls";
import {
  startFakeAnthropicTls,
  startHttpProxy,
  startTlsFront,
  TEST_CA_FILE,
  TEST_CLIENT_CERT_FILE,
  TEST_CLIENT_KEY_ENCRYPTED_FILE,
  TEST_CLIENT_KEY_FILE,
  TEST_CLIENT_KEY_PASSPHRASE,
} from "@harness/test-utils";
import { createAnthropicProvider } from "../anthropic/provider.ts";
import { CertificateError } from "./certificate-error.ts";
import { fetchFor, httpFetch } from "./http-fetch.ts";
import { networkProblem } from "./proxy-env.ts";
import { tlsEnvOf } from "./tls-env.ts";
import type { ModelEvent } from "../types.ts";

const BODY = JSON.stringify({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });

async function fake(t: TestContext, requireClientCert = false) {
  const started = await startFakeAnthropicTls({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }] }, { requireClientCert });
  t.after(() => started.close());
  return started;
}

function post(env: Record<string, string>, url: string): Promise<Response> {
  return fetchFor(env)(`${url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
}

async function replyText(response: Response): Promise<string> {
  assert.equal(response.status, 200);
  return ((await response.json()) as { content: { text: string }[] }).content[0]!.text;
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-tls-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("NODE_EXTRA_CA_CERTS in the run's environment is trusted, directly and through an HTTPS_PROXY tunnel, on top of Node's own roots", async (t) => {
  const server = await fake(t);
  const untrusted = await post({}, server.url).catch((error: TypeError) => error);
  assert.ok(untrusted instanceof TypeError && untrusted.cause instanceof CertificateError, String(untrusted));
  assert.equal(await replyText(await post({ NODE_EXTRA_CA_CERTS: TEST_CA_FILE }, server.url)), "one");
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  const tunnelled = server.url.replace("https://localhost", "https://model.test");
  assert.equal(await replyText(await post({ NODE_EXTRA_CA_CERTS: TEST_CA_FILE, HTTPS_PROXY: proxy.url }, tunnelled)), "two");
  assert.equal(proxy.seen.length, 1);
  const checked = tlsEnvOf({ NODE_EXTRA_CA_CERTS: TEST_CA_FILE });
  assert.ok(checked.ok);
  const ca = checked.value.ca ?? [];
  assert.ok(rootCertificates.every((root) => ca.includes(root)), "the public roots stay trusted");
  assert.ok(ca.includes(readFileSync(TEST_CA_FILE, "utf8").trim()), "the file's certificate is added");
});

test("an https:// proxy whose certificate the run's NODE_EXTRA_CA_CERTS signs carries https:// and http:// requests", async (t) => {
  const server = await fake(t);
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  // The proxy itself is reached over TLS, its certificate signed by the test CA as the model's is.
  const front = await startTlsFront(proxy.url);
  t.after(() => front.close());
  const env = { NODE_EXTRA_CA_CERTS: TEST_CA_FILE, HTTPS_PROXY: `https://localhost:${front.port}`, HTTP_PROXY: `https://localhost:${front.port}` };
  const tunnelled = server.url.replace("https://localhost", "https://model.test");
  assert.equal(await replyText(await post(env, tunnelled)), "one");
  assert.equal(proxy.seen.length, 1);
  // Nothing answers http://plain.test: the proxy having been asked for it is the point.
  await fetchFor(env)("http://plain.test/anything").catch(() => undefined);
  assert.deepEqual(proxy.seen[1], { method: "GET", target: "http://plain.test/anything" });
});

test("a certificate an https:// proxy presents that is not trusted is said to be the proxy's, naming its host and never its password", async (t) => {
  const server = await fake(t);
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  const front = await startTlsFront(proxy.url);
  t.after(() => front.close());
  const proxyUrl = `https://user:secret@localhost:${front.port}`;
  const env = { HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl };
  for (const url of [`${server.url.replace("https://localhost", "https://model.test")}/v1/messages`, "http://plain.test/anything"]) {
    const failed = await fetchFor(env)(url).catch((error: TypeError) => error);
    assert.ok(failed instanceof TypeError && failed.cause instanceof CertificateError, String(failed));
    assert.match(failed.cause.message, new RegExp(`^the TLS certificate of the proxy localhost:${front.port} is not trusted \\(.*\\): .*NODE_EXTRA_CA_CERTS`));
    assert.doesNotMatch(failed.cause.message, /secret|user/);
  }
  assert.equal(proxy.seen.length, 0);
  // Through a proxy that is trusted, the model host's own certificate is still the one named.
  const trusted = { ...env, NODE_EXTRA_CA_CERTS: TEST_CA_FILE };
  const wrongName = await fetchFor(trusted)(`${server.url.replace("https://localhost", "https://other.test")}/v1/messages`).catch((error: TypeError) => error);
  assert.ok(wrongName instanceof TypeError && wrongName.cause instanceof CertificateError, String(wrongName));
  assert.match(wrongName.cause.message, /^the TLS certificate of other\.test is not valid/);
});

test("a NODE_EXTRA_CA_CERTS file that changes is read again; one that is missing or holds no certificate is an error naming the variable", async (t) => {
  const server = await fake(t);
  const dir = tempDir(t);
  const file = join(dir, "corp-ca.pem");
  copyFileSync(TEST_CLIENT_CERT_FILE, file);
  const wrong = await post({ NODE_EXTRA_CA_CERTS: file }, server.url).catch((error: TypeError) => error);
  assert.ok(wrong instanceof TypeError && wrong.cause instanceof CertificateError, String(wrong));
  assert.match(wrong.cause.message, new RegExp(`NODE_EXTRA_CA_CERTS \\(${file}\\) does not hold the certificate authority`));
  copyFileSync(TEST_CA_FILE, file);
  assert.equal(await replyText(await post({ NODE_EXTRA_CA_CERTS: file }, server.url)), "one");

  const missing = join(dir, "none.pem");
  assert.match(networkProblem({ NODE_EXTRA_CA_CERTS: missing }) ?? "", new RegExp(`^NODE_EXTRA_CA_CERTS names a file that cannot be read \\(${missing}\\): `));
  const failed = await post({ NODE_EXTRA_CA_CERTS: missing }, server.url).catch((error: TypeError) => error);
  assert.ok(failed instanceof TypeError);
  assert.equal((failed.cause as Error).message, networkProblem({ NODE_EXTRA_CA_CERTS: missing }));
  assert.match(networkProblem({ NODE_EXTRA_CA_CERTS: TEST_CLIENT_KEY_FILE }) ?? "", /^NODE_EXTRA_CA_CERTS \(.*client-key\.pem\) holds no certificate \(PEM\)$/);
  assert.equal(networkProblem({ NODE_EXTRA_CA_CERTS: " " }), undefined, "a blank variable names no file");
});

test("the TLS files read are kept for the newest settings only, so files that keep changing do not pile up", (t) => {
  const dir = tempDir(t);
  const files = Array.from({ length: 40 }, (_, n) => join(dir, `ca-${n}.pem`));
  for (const file of files) copyFileSync(TEST_CA_FILE, file);
  const first = tlsEnvOf({ NODE_EXTRA_CA_CERTS: files[0]! });
  assert.equal(tlsEnvOf({ NODE_EXTRA_CA_CERTS: files[0]! }), first, "a file that did not change is not read again");
  for (const file of files.slice(1)) tlsEnvOf({ NODE_EXTRA_CA_CERTS: file });
  const again = tlsEnvOf({ NODE_EXTRA_CA_CERTS: files[0]! });
  assert.notEqual(again, first, "the oldest was dropped, and is read again");
  assert.deepEqual(again, first);
  const last = { NODE_EXTRA_CA_CERTS: files.at(-1)! };
  assert.equal(tlsEnvOf(last), tlsEnvOf(last));
});

test("the process's own fetch (httpFetch) reads its NODE_EXTRA_CA_CERTS again when the file changes, as fetchFor does", async (t) => {
  const server = await fake(t);
  const file = join(tempDir(t), "corp-ca.pem");
  copyFileSync(TEST_CLIENT_CERT_FILE, file);
  const before = process.env.NODE_EXTRA_CA_CERTS;
  process.env.NODE_EXTRA_CA_CERTS = file;
  t.after(() => {
    if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = before;
  });
  const send = () => httpFetch(`${server.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
  const wrong = await send().catch((error: TypeError) => error);
  assert.ok(wrong instanceof TypeError && wrong.cause instanceof CertificateError, String(wrong));
  assert.match(wrong.cause.message, new RegExp(`NODE_EXTRA_CA_CERTS \\(${file}\\) does not hold the certificate authority`));
  copyFileSync(TEST_CA_FILE, file);
  assert.equal(await replyText(await send()), "one");
});

test("CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY (with CLAUDE_CODE_CLIENT_KEY_PASSPHRASE for an encrypted key) present a client certificate to a server that asks for one", async (t) => {
  const server = await fake(t, true);
  const trusted = { NODE_EXTRA_CA_CERTS: TEST_CA_FILE };
  const refused = await post(trusted, server.url).catch((error: TypeError) => error);
  assert.ok(refused instanceof TypeError && refused.cause instanceof CertificateError, String(refused));
  assert.match(refused.cause.message, /^the server localhost asks for a client certificate and was given none: set CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY/);
  assert.equal(await replyText(await post({ ...trusted, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE }, server.url)), "one");
  const encrypted = { ...trusted, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_ENCRYPTED_FILE };
  assert.equal(await replyText(await post({ ...encrypted, CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: TEST_CLIENT_KEY_PASSPHRASE }, server.url)), "two");
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  const tunnelled = server.url.replace("https://localhost", "https://model.test");
  assert.equal(await replyText(await post({ ...encrypted, CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: TEST_CLIENT_KEY_PASSPHRASE, HTTPS_PROXY: proxy.url }, tunnelled)), "three");
  assert.equal(server.requests.length, 3);
});

test("a client certificate that cannot be used is an error naming the variable, never the passphrase", () => {
  const cert = { CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE };
  const cases: [Record<string, string>, RegExp][] = [
    [cert, /^CLAUDE_CODE_CLIENT_CERT is set without CLAUDE_CODE_CLIENT_KEY, the file of its private key$/],
    [{ CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE }, /^CLAUDE_CODE_CLIENT_KEY is set without CLAUDE_CODE_CLIENT_CERT, the file of the client certificate$/],
    [{ ...cert, CLAUDE_CODE_CLIENT_KEY: "/nonexistent/key.pem" }, /^CLAUDE_CODE_CLIENT_KEY names a file that cannot be read \(\/nonexistent\/key\.pem\): /],
    [{ ...cert, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_ENCRYPTED_FILE }, /^CLAUDE_CODE_CLIENT_KEY \(.*client-key-encrypted\.pem\) cannot be used with CLAUDE_CODE_CLIENT_CERT: .*CLAUDE_CODE_CLIENT_KEY_PASSPHRASE/],
    [{ ...cert, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_ENCRYPTED_FILE, CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: "not-it" }, /^CLAUDE_CODE_CLIENT_KEY \(.*\) cannot be used with CLAUDE_CODE_CLIENT_CERT: .*CLAUDE_CODE_CLIENT_KEY_PASSPHRASE/],
    [{ CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_KEY_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE }, /^CLAUDE_CODE_CLIENT_CERT \(.*client-key\.pem\) holds no certificate \(PEM\)$/],
    [{ CLAUDE_CODE_CLIENT_CERT: TEST_CA_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE }, /^CLAUDE_CODE_CLIENT_KEY \(.*client-key\.pem\) cannot be used with CLAUDE_CODE_CLIENT_CERT: .*mismatch/],
  ];
  for (const [env, expected] of cases) {
    const problem = networkProblem(env) ?? "";
    assert.match(problem, expected);
    assert.doesNotMatch(problem, /not-it/);
  }
});

test("two runs alike but for their NODE_EXTRA_CA_CERTS get a model client each, so the second's CA counts", async (t) => {
  const server = await fake(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url, HARNESS_MODEL_RETRIES: "0" };
  const run = async (extra: Record<string, string>) => {
    const provider = createAnthropicProvider({}, { ...env, ...extra });
    let last: ModelEvent | undefined;
    for await (const event of provider.stream({ model: "claude-test", messages: [{ role: "user", content: "hi" }] })) last = event;
    return last?.type === "done" ? last.stopReason : undefined;
  };
  assert.equal(await run({}), "error");
  assert.equal(await run({ NODE_EXTRA_CA_CERTS: TEST_CA_FILE }), "end_turn");
});
