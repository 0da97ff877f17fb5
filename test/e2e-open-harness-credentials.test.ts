// harnesses.validateCredentials: the server's model key, or one a request gives, put to the provider
// its runs use (here the fake Anthropic API, which takes one key only), the key never in the answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { freePort, startFakeOpenAI } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const validate = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) });

test("the runs' key is valid, a wrong one is refused as the provider refused it, and neither is shown", async () => {
  const h = await startHarness({ apiKeys: ["test-key"] });
  const api = apiAs(h.server.url);
  try {
    const own = await api(`${V1}/validate-credentials`, validate({}));
    assert.equal(own.status, 200);
    const ownText = await own.text();
    assert.deepEqual(JSON.parse(ownText), { valid: true, stored: false, provider: "anthropic", base_url: h.fake.url, model: JSON.parse(ownText).model, key_source: "server" });
    assert.ok(!ownText.includes("test-key"));

    const wrong = await api(`${V1}/validate-credentials`, validate({ api_key: "sk-ant-wrong-0123456789" }));
    assert.equal(wrong.status, 200);
    const wrongText = await wrong.text();
    const answer = JSON.parse(wrongText);
    assert.equal(answer.valid, false);
    assert.equal(answer.reason, "refused");
    assert.equal(answer.key_source, "request");
    assert.match(answer.error, /refused the key \(401\): invalid x-api-key/);
    assert.ok(!wrongText.includes("wrong-0123456789"));
    assert.deepEqual((await (await api(`${V1}/validate-credentials`, validate({ api_key: "test-key" }))).json()).valid, true);
    assert.equal(h.fake.requests.length, 0, "no model reply was asked for");

    // Bad input is named; what this harness does not do is 501 naming the field.
    const bad = await api(`${V1}/validate-credentials`, validate({ api_key: 42 }));
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /api_key/);
    const extra = await api(`${V1}/validate-credentials`, validate({ key: "x" }));
    assert.equal(extra.status, 400);
    assert.match((await extra.json()).error.message, /key/);
    for (const [field, body] of [["store", { api_key: "test-key", store: true }], ["base_url", { api_key: "test-key", base_url: "https://example.com" }]] as const) {
      const refused = await api(`${V1}/validate-credentials`, validate(body));
      assert.equal(refused.status, 501);
      const error = (await refused.json()).error;
      assert.equal(error.operation, "harnesses.validateCredentials");
      assert.match(error.message, new RegExp(field));
    }
    assert.equal((await api(`${V1}/validate-credentials`, validate({ api_key: "test-key", store: false }))).status, 200);
    assert.equal((await api("/v1/harnesses/other/validate-credentials", validate({}))).status, 404);
  } finally {
    await h.close();
  }
});

test("a server without a key says so, and a provider out of reach is unreachable", async () => {
  const port = await freePort();
  const h = await startHarness({}, { ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` });
  const api = apiAs(h.server.url);
  try {
    const none = await (await api(`${V1}/validate-credentials`, validate({}))).json();
    assert.equal(none.valid, false);
    assert.equal(none.reason, "missing");
    assert.match(none.error, /ANTHROPIC_API_KEY/);
    const away = await (await api(`${V1}/validate-credentials`, validate({ api_key: "some-key" }))).json();
    assert.equal(away.valid, false);
    assert.equal(away.reason, "unreachable");
    assert.match(away.error, new RegExp(`could not be reached at http://127.0.0.1:${port}`));
  } finally {
    await h.close();
  }
});

test("runs on an OpenAI-compatible model are checked by listing its models, the provider's quote of a refused key hidden", async () => {
  const openai = await startFakeOpenAI({ apiKeys: ["sk-right-key-0001"] });
  const h = await startHarness({}, { HARNESS_MODEL: "openai/gpt-test", OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk-right-key-0001" });
  const api = apiAs(h.server.url);
  try {
    const own = await (await api(`${V1}/validate-credentials`, validate({}))).json();
    assert.deepEqual(own, { valid: true, stored: false, provider: "openai", base_url: openai.url, model: "gpt-test", key_source: "server" });
    const wrong = await api(`${V1}/validate-credentials`, validate({ api_key: "sk-wrong-key-0002" }));
    const text = await wrong.text();
    const answer = JSON.parse(text);
    assert.deepEqual([answer.valid, answer.reason, answer.key_source], [false, "refused", "request"]);
    assert.match(answer.error, /the OpenAI-compatible API refused the key \(401\): Incorrect API key provided: \*\*\*/);
    assert.ok(!text.includes("0002") && !text.includes("0001"));
  } finally {
    await h.close();
    await openai.close();
  }
});
