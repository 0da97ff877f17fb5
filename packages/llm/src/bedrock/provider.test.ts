// The Anthropic provider with CLAUDE_CODE_USE_BEDROCK: through the real SDK to the fake server's
// Bedrock route, which checks the SigV4 signature (or the Bedrock API key) and answers in AWS
// event-stream frames.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FAKE_AWS_KEYS, FAKE_BEDROCK_API_KEY, type FakeReply, startFakeAnthropic } from "@harness/test-utils";
import { createAnthropicProvider } from "../anthropic/provider.ts";
import { forgetKeptCredentials } from "../aws/credential-process.ts";
import { collect, lastDone, retries, textOf, thinkingOf } from "../test-support.ts";

async function setup(t: TestContext, replies: FakeReply[]) {
  const fake = await startFakeAnthropic({ replies, awsKeys: [FAKE_AWS_KEYS, { accessKeyId: "ASIATEMP", secretAccessKey: "temp-secret", sessionToken: "session-1" }] });
  t.after(() => fake.close());
  const env = {
    CLAUDE_CODE_USE_BEDROCK: "1",
    AWS_REGION: "us-west-2",
    ANTHROPIC_BEDROCK_BASE_URL: fake.url,
    AWS_ACCESS_KEY_ID: FAKE_AWS_KEYS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_KEYS.secretAccessKey,
    HOME: "/nonexistent",
    // Not sent to Bedrock, which takes AWS's credentials.
    ANTHROPIC_API_KEY: "sk-ant-not-for-bedrock",
  };
  return { fake, env };
}

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const ask = { model: MODEL, messages: [{ role: "user" as const, content: "hello" }], maxTokens: 100 };

test("a request goes signed to the model's invoke-with-response-stream, and the framed reply reads as Anthropic's, thinking and usage too", async (t) => {
  const { fake, env } = await setup(t, [{ thinking: ["Let me ", "think"], text: ["Hel", "lo"], usage: { input_tokens: 7, output_tokens: 2 } }]);
  const events = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream({ ...ask, thinking: { budgetTokens: 1024 } }));
  const done = lastDone(events);
  assert.equal(done.errorMessage, undefined);
  assert.equal(textOf(events), "Hello");
  assert.deepEqual(thinkingOf(events), ["Let me ", "think"]);
  assert.equal(done.usage?.inputTokens, 7);
  const [request] = fake.requests;
  assert.equal(request.path, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream");
  assert.equal(request.body.model, undefined);
  assert.equal(request.body.stream, undefined);
  assert.equal(request.body.anthropic_version, "bedrock-2023-05-31");
  assert.equal(request.body.max_tokens, 100);
  assert.match(String(request.headers.authorization), new RegExp(`^AWS4-HMAC-SHA256 Credential=${FAKE_AWS_KEYS.accessKeyId}/\\d{8}/us-west-2/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=`));
  assert.equal(request.headers["x-api-key"], undefined);
});

test("a session token is signed; a wrong secret is refused by Bedrock and the run says so without retrying", async (t) => {
  const { fake, env } = await setup(t, [{ text: "temporary" }, { text: "never" }]);
  const temporary = await collect(createAnthropicProvider({}, { ...env, AWS_ACCESS_KEY_ID: "ASIATEMP", AWS_SECRET_ACCESS_KEY: "temp-secret", AWS_SESSION_TOKEN: "session-1" }).stream(ask));
  assert.equal(textOf(temporary), "temporary");
  assert.equal(fake.requests[0].headers["x-amz-security-token"], "session-1");

  const wrong = await collect(createAnthropicProvider({ retryBaseMs: 1 }, { ...env, AWS_SECRET_ACCESS_KEY: "not-the-secret" }).stream(ask));
  assert.equal(lastDone(wrong).errorMessage, "Amazon Bedrock error 403 (permission_error): AccessDeniedException: The request signature we calculated does not match the signature you provided");
  assert.equal(retries(wrong).length, 0);
});

test("a Bedrock API key goes as a bearer token; with CLAUDE_CODE_SKIP_BEDROCK_AUTH nothing is signed or sent", async (t) => {
  const { fake, env } = await setup(t, [{ text: "keyed" }, { text: "gateway" }]);
  const keyed = await collect(createAnthropicProvider({}, { ...env, AWS_BEARER_TOKEN_BEDROCK: FAKE_BEDROCK_API_KEY }).stream(ask));
  assert.equal(textOf(keyed), "keyed");
  assert.equal(fake.requests[0].headers.authorization, `Bearer ${FAKE_BEDROCK_API_KEY}`);
  const skipped = await collect(createAnthropicProvider({}, { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: fake.url, CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1", HOME: "/nonexistent" }).stream(ask));
  assert.equal(textOf(skipped), "gateway");
  assert.equal(fake.requests[1].headers.authorization, undefined);
  assert.equal(fake.requests[1].headers["x-amz-date"], undefined);
});

test("a throttlingException frame is retried as a 429, an exception after text ends the run naming Bedrock", async (t) => {
  const { fake, env } = await setup(t, [
    { kind: "stream-error", errorType: "rate_limit_error", message: "Too many tokens" },
    { kind: "http-error", status: 503, errorType: "overloaded_error", message: "busy" },
    { text: "after two retries" },
    { kind: "stream-error", afterText: "partial ", errorType: "api_error", message: "model failed" },
  ]);
  const retried = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream(ask));
  assert.equal(textOf(retried), "after two retries");
  assert.deepEqual(retries(retried).map((r) => r.reason), [
    "Amazon Bedrock error 429 (rate_limit_error): throttlingException: Too many tokens",
    "Amazon Bedrock error 503 (overloaded_error): ServiceUnavailableException: busy",
  ]);
  const broken = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream(ask));
  assert.equal(textOf(broken), "partial ");
  assert.equal(lastDone(broken).errorMessage, "model stream broke after partial output: Amazon Bedrock stream error (api_error): internalServerException: model failed");
  assert.equal(fake.requests.length, 4);
});

test("no credentials end the run at once naming what to set; an endpoint that does not answer is Bedrock's", async (t) => {
  const { fake, env } = await setup(t, []);
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ...bare } = env;
  const none = await collect(createAnthropicProvider({ retryBaseMs: 1 }, bare).stream(ask));
  assert.match(lastDone(none).errorMessage ?? "", /^no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or .* for profile "default" in \/nonexistent\/.aws\/credentials$/);
  assert.equal(retries(none).length, 0);
  assert.equal(fake.requests.length, 0);
  const closed = await collect(createAnthropicProvider({ maxRetries: 0 }, { ...env, ANTHROPIC_BEDROCK_BASE_URL: "http://127.0.0.1:9" }).stream(ask));
  assert.match(lastDone(closed).errorMessage ?? "", /^could not connect to Amazon Bedrock at http:\/\/127\.0\.0\.1:9: /);
});

test("a credential that cannot go in a header (a stray line break) ends the run naming where it came from, never its value", async (t) => {
  const { fake, env } = await setup(t, []);
  const damaged = [
    { ...env, AWS_BEARER_TOKEN_BEDROCK: "ABSKsecret-one\nsecret-two" },
    { ...env, AWS_SESSION_TOKEN: "session-secret\r\nmore" },
  ];
  for (const each of damaged) {
    const events = await collect(createAnthropicProvider({ retryBaseMs: 1 }, each).stream(ask));
    const message = lastDone(events).errorMessage ?? "";
    assert.doesNotMatch(message, /secret/, message);
    assert.match(message, /AWS_(BEARER_TOKEN_BEDROCK|SESSION_TOKEN)/);
    assert.equal(retries(events).length, 0);
  }
  // Handed over for the run (by a server), likewise.
  const given = await collect(createAnthropicProvider({ retryBaseMs: 1, bedrockAuth: { bearer: "ABSKsecret\u0000x" } }, env).stream(ask));
  assert.doesNotMatch(lastDone(given).errorMessage ?? "", /secret/);
  assert.equal(fake.requests.length, 0);
});

test("an error answer that will not end is read only as far as its start, which the run says", async (t) => {
  const { env } = await setup(t, []);
  const { createServer } = await import("node:http");
  const chunk = Buffer.alloc(64 * 1024, "x");
  let sent = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { "content-type": "text/plain" });
    res.write("upstream exploded ");
    const more = () => {
      while (sent < 256 * 1024 * 1024 && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on("connection", (socket) => t.after(() => socket.destroy()));
  const events = await collect(createAnthropicProvider({ maxRetries: 0 }, { ...env, ANTHROPIC_BEDROCK_BASE_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}` }).stream(ask));
  assert.match(lastDone(events).errorMessage ?? "", /^Amazon Bedrock error 500.*upstream exploded x+/);
  assert.ok(sent < 64 * 1024 * 1024, `read ${sent} bytes`);
});

test("a model id that a URL would read as a path step (. or ..) is refused at once, naming it, and nothing is sent", async (t) => {
  const { fake, env } = await setup(t, [{ text: ["never"] }]);
  for (const model of [".", ".."]) {
    const done = lastDone(await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream({ ...ask, model })));
    assert.match(done.errorMessage ?? "", new RegExp(`model id "${model.replace(/\./g, "\\.")}" cannot be sent to Amazon Bedrock`));
    assert.equal(retries(await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream({ ...ask, model }))).length, 0, "not retried");
  }
  assert.equal(fake.requests.length, 0);
});

test("keys that Bedrock says expired are dropped: awsAuthRefresh runs, the credential command is asked again, and the request goes once more", async (t) => {
  t.after(forgetKeptCredentials);
  const fake = await startFakeAnthropic({ replies: [{ text: "renewed" }, { text: "never" }], awsKeys: [{ accessKeyId: "ASIAOLD", secretAccessKey: "old-secret" }, { accessKeyId: "ASIANEW", secretAccessKey: "new-secret" }], expiredAwsKeys: ["ASIAOLD"] });
  t.after(() => fake.close());
  const home = mkdtempSync(join(tmpdir(), "harness-bedrock-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, ".aws"));
  // The first run prints the keys that expired, the next the renewed ones.
  const get = join(home, "get-keys");
  writeFileSync(get, `#!/bin/sh\nif [ -e ${home}/renewed ]; then id=ASIANEW secret=new-secret; else id=ASIAOLD secret=old-secret; fi\nprintf '{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "%s"}' $id $secret\n`, { mode: 0o755 });
  writeFileSync(join(home, ".aws", "config"), `[default]\ncredential_process = ${get}\n`);
  const env = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-west-2", ANTHROPIC_BEDROCK_BASE_URL: fake.url, HOME: home, PATH: process.env.PATH };
  const events = await collect(createAnthropicProvider({ retryBaseMs: 1, awsCommands: { authRefresh: `touch ${home}/renewed` } }, env).stream(ask));
  assert.equal(lastDone(events).errorMessage, undefined);
  assert.equal(textOf(events), "renewed");
  assert.deepEqual(fake.requests.map((request) => /Credential=(\w+)\//.exec(String(request.headers.authorization))?.[1]), ["ASIAOLD", "ASIANEW"]);
  assert.equal(retries(events).length, 0);

  // Keys that are still refused after the refresh are the run's error: it is not tried again.
  forgetKeptCredentials();
  rmSync(join(home, "renewed"));
  const refused = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream(ask));
  assert.equal(lastDone(refused).errorMessage, "Amazon Bedrock error 403 (authentication_error): ExpiredTokenException: The security token included in the request is expired");
  assert.equal(fake.requests.length, 4);
});
