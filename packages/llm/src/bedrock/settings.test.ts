// The Bedrock switches as the environment gives them, and the request the SDK's is turned into.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bedrockRequest } from "./fetch.ts";
import { bedrockProblems, bedrockSettings } from "./settings.ts";
import { hasAnthropicCredentials } from "../model-prefix.ts";
import { baseUrlProblems } from "../net/base-urls.ts";

test("off unless CLAUDE_CODE_USE_BEDROCK says so; on, AWS_REGION (else AWS_DEFAULT_REGION) picks the endpoint", () => {
  assert.equal(bedrockSettings({ AWS_REGION: "us-east-1" }), undefined);
  assert.equal(bedrockSettings({ CLAUDE_CODE_USE_BEDROCK: "0", AWS_REGION: "us-east-1" }), undefined);
  assert.deepEqual(bedrockSettings({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-west-2" }), { region: "us-west-2", baseURL: "https://bedrock-runtime.us-west-2.amazonaws.com", skipAuth: false });
  assert.equal(bedrockSettings({ CLAUDE_CODE_USE_BEDROCK: "true", AWS_DEFAULT_REGION: "eu-central-1" })?.baseURL, "https://bedrock-runtime.eu-central-1.amazonaws.com");
  assert.equal(bedrockSettings({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "ap-south-1", AWS_DEFAULT_REGION: "eu-central-1" })?.region, "ap-south-1");
  const gateway = bedrockSettings({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: "https://gw.example/bedrock/", CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1" });
  assert.equal(gateway?.baseURL, "https://gw.example/bedrock");
  assert.equal(gateway?.skipAuth, true);
});

test("a missing region, a malformed switch or region, or Vertex on as well is a problem naming the variable", () => {
  assert.deepEqual(bedrockProblems({}), []);
  assert.deepEqual(bedrockProblems({ CLAUDE_CODE_USE_BEDROCK: "1" }), ["CLAUDE_CODE_USE_BEDROCK is set but AWS_REGION is not: set it to the AWS region that serves Claude, such as us-east-1"]);
  assert.throws(() => bedrockSettings({ CLAUDE_CODE_USE_BEDROCK: "1" }), /AWS_REGION is not/);
  assert.match(bedrockProblems({ CLAUDE_CODE_USE_BEDROCK: "maybe" })[0], /^CLAUDE_CODE_USE_BEDROCK must be 1 or 0, got "maybe"/);
  assert.match(bedrockProblems({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us east 1" })[0], /^AWS_REGION must be an AWS region such as us-east-1, got "us east 1"/);
  assert.match(bedrockProblems({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_DEFAULT_REGION: "virginia" })[0], /^AWS_DEFAULT_REGION must be/);
  assert.match(bedrockProblems({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", CLAUDE_CODE_USE_VERTEX: "1" })[0], /both set/);
  assert.match(baseUrlProblems({ ANTHROPIC_BEDROCK_BASE_URL: "gw.example" })[0], /^ANTHROPIC_BEDROCK_BASE_URL must be an http\(s\) URL/);
});

test("with Bedrock on, Claude models need no Anthropic key", () => {
  assert.equal(hasAnthropicCredentials(undefined, { CLAUDE_CODE_USE_BEDROCK: "1" }), true);
});

test("the SDK's Messages request becomes Bedrock's: the model id (or ARN) encoded in the path, the body without model and stream and with Bedrock's version", () => {
  const settings = { region: "us-east-1", baseURL: "https://bedrock-runtime.us-east-1.amazonaws.com", skipAuth: false };
  const body = JSON.stringify({ model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", max_tokens: 10, messages: [], stream: true, thinking: { type: "enabled", budget_tokens: 1024 } });
  const streamed = bedrockRequest(settings, "https://bedrock-runtime.us-east-1.amazonaws.com/v1/messages", body);
  assert.equal(streamed.url, "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream");
  assert.deepEqual(JSON.parse(streamed.body), { anthropic_version: "bedrock-2023-05-31", max_tokens: 10, messages: [], thinking: { type: "enabled", budget_tokens: 1024 } });
  const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123";
  const whole = bedrockRequest(settings, "https://x/v1/messages", JSON.stringify({ model: arn, max_tokens: 1, messages: [] }));
  assert.equal(whole.url, `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(arn)}/invoke`);
  assert.equal(whole.streaming, false);
  assert.throws(() => bedrockRequest(settings, "https://x/v1/messages/count_tokens", body), /Messages API only/);
  assert.throws(() => bedrockRequest(settings, "https://x/v1/messages", JSON.stringify({ messages: [] })), /must name its model/);
});
