// `harness run` with Claude on Amazon Bedrock, switched on as in Claude Code (CLAUDE_CODE_USE_BEDROCK
// and its variables): against the fake server's Bedrock route, which checks the request's SigV4
// signature and answers in AWS event-stream frames, with no Anthropic key anywhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AWS_KEYS, FAKE_BEDROCK_API_KEY, startFakeAnthropic } from "@harness/test-utils";
import { bedrockRunEnv, harness, tempDir, withFake } from "../test-support.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

async function bedrockEnv(t: { after(fn: () => unknown): void }, replies: { text: string }[]) {
  const fake = await withFake(t, startFakeAnthropic({ replies }));
  const dir = tempDir(t);
  const env: Record<string, string> = { ...bedrockRunEnv(fake.url), AWS_ACCESS_KEY_ID: FAKE_AWS_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: FAKE_AWS_KEYS.secretAccessKey };
  return { fake, dir, env };
}

test("a run reaches Claude through Amazon Bedrock with signed AWS keys and no Anthropic key", async (t) => {
  const { fake, dir, env } = await bedrockEnv(t, [{ text: "Hello from Bedrock" }]);
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello from Bedrock/);
  const [request] = fake.requests;
  assert.equal(request.path, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream");
  assert.equal(request.body.anthropic_version, "bedrock-2023-05-31");
  assert.equal(request.body.model, undefined);
  assert.match(String(request.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIAFAKEHARNESS00001\/\d{8}\/us-east-1\/bedrock\/aws4_request, /);
});

test("a Bedrock API key, or a profile's keys in ~/.aws/credentials, serve as well", async (t) => {
  const { fake, dir, env } = await bedrockEnv(t, [{ text: "by API key" }, { text: "by profile" }]);
  const keyed = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_BEARER_TOKEN_BEDROCK: FAKE_BEDROCK_API_KEY }).result;
  assert.equal(keyed.code, 0, keyed.stderr);
  assert.match(keyed.stdout, /by API key/);
  assert.equal(fake.requests[0].headers.authorization, `Bearer ${FAKE_BEDROCK_API_KEY}`);

  const home = tempDir(t);
  mkdirSync(join(home, ".aws"));
  writeFileSync(join(home, ".aws", "credentials"), `[bedrock]\naws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}\naws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}\n`);
  const profiled = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, HOME: home, AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_PROFILE: "bedrock" }).result;
  assert.equal(profiled.code, 0, profiled.stderr);
  assert.match(profiled.stdout, /by profile/);
});

test("without AWS_REGION, or without AWS credentials, the run says so in one line", async (t) => {
  const { fake, dir, env } = await bedrockEnv(t, [{ text: "never" }]);
  const noRegion = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_REGION: "", AWS_DEFAULT_REGION: "" }).result;
  assert.notEqual(noRegion.code, 0);
  assert.match(noRegion.stderr, /CLAUDE_CODE_USE_BEDROCK is set but AWS_REGION is not/);
  assert.doesNotMatch(noRegion.stderr, /ANTHROPIC_API_KEY/);

  const home = tempDir(t);
  const noKeys = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, HOME: home, AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "" }).result;
  assert.notEqual(noKeys.code, 0);
  assert.match(noKeys.stdout + noKeys.stderr, /no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  assert.equal(fake.requests.length, 0);
});

test("the switches may come from the env of ~/.claude/settings.json, as Claude Code's users set them", async (t) => {
  const { fake, dir, env } = await bedrockEnv(t, [{ text: "from the settings" }]);
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  const { ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ...bedrock } = env;
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: bedrock }));
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { HOME: home, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /from the settings/);
  assert.match(fake.requests[0].path, /^\/model\/.*\/invoke-with-response-stream$/);
});
