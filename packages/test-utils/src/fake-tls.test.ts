// The fake behind TLS: a client that trusts the test CA gets the fake's replies; one that does not
// is refused at the handshake.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { test } from "node:test";
import { startFakeAnthropicTls, TEST_CA_FILE, TEST_CLIENT_CERT_FILE, TEST_CLIENT_KEY_FILE } from "./fake-tls.ts";

function post(url: string, tls: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    const req = request(`${url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, ...tls }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("the TLS fake answers as the plain one to a client that trusts the test CA, and is refused by one that does not", async (t) => {
  const fake = await startFakeAnthropicTls({ replies: [{ text: "over TLS" }] });
  t.after(() => fake.close());
  assert.match(fake.url, /^https:\/\/localhost:\d+$/);
  await assert.rejects(post(fake.url), (error: NodeJS.ErrnoException) => error.code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
  const answer = await post(fake.url, { ca: readFileSync(TEST_CA_FILE) });
  assert.equal(answer.status, 200);
  assert.equal(JSON.parse(answer.body).content[0].text, "over TLS");
  assert.equal(fake.requests.length, 1);
  assert.equal(fake.requests[0]!.path, "/v1/messages");
});

test("asked for client certificates, the TLS fake refuses a client without the test one and answers one with it", async (t) => {
  const fake = await startFakeAnthropicTls({ replies: [{ text: "mutual" }] }, { requireClientCert: true });
  t.after(() => fake.close());
  const ca = readFileSync(TEST_CA_FILE);
  await assert.rejects(post(fake.url, { ca }));
  const answer = await post(fake.url, { ca, cert: readFileSync(TEST_CLIENT_CERT_FILE), key: readFileSync(TEST_CLIENT_KEY_FILE) });
  assert.equal(JSON.parse(answer.body).content[0].text, "mutual");
  assert.equal(fake.requests.length, 1);
});
