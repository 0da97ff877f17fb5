// The Vertex switches as the environment gives them, and the request the SDK's is turned into.
import assert from "node:assert/strict";
import { test } from "node:test";
import { vertexRequest } from "./fetch.ts";
import { vertexProblems, vertexSettings } from "./settings.ts";
import { hasAnthropicCredentials } from "../model-prefix.ts";
import { baseUrlProblems } from "../net/base-urls.ts";

test("off unless CLAUDE_CODE_USE_VERTEX says so; on, the region defaults to us-east5 and picks the endpoint", () => {
  assert.equal(vertexSettings({}), undefined);
  assert.equal(vertexSettings({ CLAUDE_CODE_USE_VERTEX: "0", ANTHROPIC_VERTEX_PROJECT_ID: "p" }), undefined);
  assert.deepEqual(vertexSettings({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "my-project" }), {
    projectId: "my-project",
    region: "us-east5",
    baseURL: "https://us-east5-aiplatform.googleapis.com/v1",
    skipAuth: false,
  });
  assert.equal(vertexSettings({ CLAUDE_CODE_USE_VERTEX: "true", ANTHROPIC_VERTEX_PROJECT_ID: "p", CLOUD_ML_REGION: "global" })?.baseURL, "https://aiplatform.googleapis.com/v1");
  assert.equal(vertexSettings({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p", CLOUD_ML_REGION: "europe-west1" })?.baseURL, "https://europe-west1-aiplatform.googleapis.com/v1");
  const gateway = vertexSettings({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p", ANTHROPIC_VERTEX_BASE_URL: "https://gw.example/vertex/v1/", CLAUDE_CODE_SKIP_VERTEX_AUTH: "1" });
  assert.equal(gateway?.baseURL, "https://gw.example/vertex/v1");
  assert.equal(gateway?.skipAuth, true);
});

test("a missing project id or a malformed switch or region is a problem naming the variable", () => {
  assert.deepEqual(vertexProblems({}), []);
  assert.match(vertexProblems({ CLAUDE_CODE_USE_VERTEX: "1" })[0], /ANTHROPIC_VERTEX_PROJECT_ID is not/);
  assert.throws(() => vertexSettings({ CLAUDE_CODE_USE_VERTEX: "1" }), /ANTHROPIC_VERTEX_PROJECT_ID/);
  assert.match(vertexProblems({ CLAUDE_CODE_USE_VERTEX: "maybe" })[0], /^CLAUDE_CODE_USE_VERTEX must be 1 or 0, got "maybe"/);
  assert.match(vertexProblems({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p", CLOUD_ML_REGION: "us east" })[0], /^CLOUD_ML_REGION must be/);
  assert.match(baseUrlProblems({ ANTHROPIC_VERTEX_BASE_URL: "gw.example" })[0], /^ANTHROPIC_VERTEX_BASE_URL must be an http\(s\) URL/);
});

test("with Vertex on, Claude models need no Anthropic key", () => {
  assert.equal(hasAnthropicCredentials(undefined, {}), false);
  assert.equal(hasAnthropicCredentials(undefined, { CLAUDE_CODE_USE_VERTEX: "1" }), true);
});

test("the SDK's Messages request becomes Vertex's: the model in the path, the body without it and with Vertex's version", () => {
  const settings = { projectId: "my-project", region: "us-east5", baseURL: "https://us-east5-aiplatform.googleapis.com/v1", skipAuth: false };
  const body = JSON.stringify({ model: "claude-sonnet-4-5@20250929", max_tokens: 10, messages: [], stream: true });
  const streamed = vertexRequest(settings, "https://us-east5-aiplatform.googleapis.com/v1/v1/messages", body);
  assert.equal(streamed.url, "https://us-east5-aiplatform.googleapis.com/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict");
  assert.deepEqual(JSON.parse(streamed.body), { anthropic_version: "vertex-2023-10-16", max_tokens: 10, messages: [], stream: true });
  const whole = vertexRequest(settings, "https://us-east5-aiplatform.googleapis.com/v1/v1/messages", JSON.stringify({ model: "m", max_tokens: 1, messages: [] }));
  assert.match(whole.url, /\/models\/m:rawPredict$/);
  assert.throws(() => vertexRequest(settings, "https://x/v1/v1/models", body), /Messages API only/);
});
