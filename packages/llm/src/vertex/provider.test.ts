// The Anthropic provider with CLAUDE_CODE_USE_VERTEX: through the real SDK to the fake server's
// Vertex route, with a Google token from the fake token endpoint.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { type FakeReply, startFakeAnthropic, startFakeGoogleToken } from "@harness/test-utils";
import { createAnthropicProvider } from "../anthropic/provider.ts";
import { createProviderForModel } from "../route-model.ts";
import { collect, lastDone, textOf } from "../test-support.ts";

async function setup(t: TestContext, replies: FakeReply[]) {
  const fake = await startFakeAnthropic({ replies });
  const google = await startFakeGoogleToken();
  const dir = mkdtempSync(join(tmpdir(), "harness-vertex-"));
  t.after(async () => {
    await fake.close();
    await google.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = {
    CLAUDE_CODE_USE_VERTEX: "1",
    ANTHROPIC_VERTEX_PROJECT_ID: "my-project",
    CLOUD_ML_REGION: "europe-west1",
    ANTHROPIC_VERTEX_BASE_URL: `${fake.url}/v1`,
    GOOGLE_APPLICATION_CREDENTIALS: google.serviceAccountFile(dir),
    // Not sent to Vertex, which takes Google's token.
    ANTHROPIC_API_KEY: "sk-ant-not-for-vertex",
  };
  return { fake, google, env, dir };
}

const ask = { model: "claude-sonnet-4-5@20250929", messages: [{ role: "user" as const, content: "hello" }], maxTokens: 100 };

test("a request goes to the model's streamRawPredict with Vertex's body and a Google bearer token", async (t) => {
  const { fake, google, env } = await setup(t, [{ text: ["Hel", "lo"], usage: { input_tokens: 7, output_tokens: 2 } }]);
  const events = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream(ask));
  const done = lastDone(events);
  assert.equal(done.errorMessage, undefined);
  assert.equal(textOf(events), "Hello");
  assert.equal(done.usage?.inputTokens, 7);
  const [request] = fake.requests;
  assert.equal(request.path, "/v1/projects/my-project/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict");
  assert.equal(request.body.model, undefined);
  assert.equal(request.body.anthropic_version, "vertex-2023-10-16");
  assert.equal(request.body.stream, true);
  assert.equal(request.body.max_tokens, 100);
  assert.equal(request.headers.authorization, `Bearer ${google.issued[0]}`);
  assert.equal(request.headers["x-api-key"], undefined);
});

test("with CLAUDE_CODE_SKIP_VERTEX_AUTH no token is asked for or sent", async (t) => {
  const { fake, google, env } = await setup(t, [{ text: "ok" }]);
  const events = await collect(createAnthropicProvider({}, { ...env, CLAUDE_CODE_SKIP_VERTEX_AUTH: "1", GOOGLE_APPLICATION_CREDENTIALS: "/nonexistent.json" }).stream(ask));
  assert.equal(lastDone(events).errorMessage, undefined);
  assert.equal(fake.requests[0].headers.authorization, undefined);
  assert.equal(google.requests.length, 0);
});

test("a token Google refuses ends the run at once with its reason; an HTTP error of Vertex is retried as Anthropic's", async (t) => {
  const { fake, google, env } = await setup(t, [{ kind: "http-error", status: 529 }, { text: "after the retry" }]);
  google.refuse = { status: 400, error: "invalid_grant", description: "Invalid JWT Signature." };
  const refused = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream(ask));
  assert.match(lastDone(refused).errorMessage ?? "", /^Google refused an access token for the credentials in .*\(GOOGLE_APPLICATION_CREDENTIALS\): .* answered 400: invalid_grant: Invalid JWT Signature\.$/);
  assert.equal(refused.filter((e) => e.type === "retry").length, 0);
  assert.equal(fake.requests.length, 0);

  google.refuse = undefined;
  const retried = await collect(createAnthropicProvider({ retryBaseMs: 1 }, env).stream(ask));
  assert.equal(textOf(retried), "after the retry");
  assert.equal(fake.requests.length, 2);
});

test("without a project id the model cannot be used, and the error names ANTHROPIC_VERTEX_PROJECT_ID", () => {
  const routed = createProviderForModel("claude-sonnet-4-5", { CLAUDE_CODE_USE_VERTEX: "1" });
  assert.equal(routed.ok, false);
  assert.match(!routed.ok ? routed.error : "", /ANTHROPIC_VERTEX_PROJECT_ID is not/);
});

test("Vertex's failures name Vertex AI, not Anthropic's API", async (t) => {
  const { env } = await setup(t, [{ kind: "http-error", status: 400, message: "bad thing" }]);
  const refused = await collect(createAnthropicProvider({ maxRetries: 0 }, env).stream(ask));
  assert.equal(lastDone(refused).errorMessage, "Vertex AI error 400 (invalid_request_error): bad thing");
  const closed = await collect(createAnthropicProvider({ maxRetries: 0 }, { ...env, ANTHROPIC_VERTEX_BASE_URL: "http://127.0.0.1:9/v1" }).stream(ask));
  assert.match(lastDone(closed).errorMessage ?? "", /^could not connect to Vertex AI at http:\/\/127\.0\.0\.1:9\/v1: /);
});

test("a Google token that cannot go in a header ends the run without saying the token", async (t) => {
  const { env } = await setup(t, []);
  const events = await collect(createAnthropicProvider({ retryBaseMs: 1, googleAccessToken: "ya29.secret\nrest" }, env).stream(ask));
  const message = lastDone(events).errorMessage ?? "";
  assert.doesNotMatch(message, /secret/, message);
  assert.match(message, /Google access token/);
});
