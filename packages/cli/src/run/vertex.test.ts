// `harness run` with Claude on Google Cloud's Vertex AI, switched on as in Claude Code
// (CLAUDE_CODE_USE_VERTEX and its variables): against the fake server's Vertex route and a fake
// Google token endpoint, with no Anthropic key anywhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, startFakeGoogleCloud, startFakeGoogleToken } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

async function vertexEnv(t: { after(fn: () => unknown): void }, replies: { text: string }[]) {
  const fake = await withFake(t, startFakeAnthropic({ replies }));
  const google = await startFakeGoogleToken();
  t.after(() => google.close());
  const dir = tempDir(t);
  const env = {
    ANTHROPIC_API_KEY: "",
    ANTHROPIC_AUTH_TOKEN: "",
    CLAUDE_CODE_USE_VERTEX: "1",
    ANTHROPIC_VERTEX_PROJECT_ID: "my-project",
    ANTHROPIC_VERTEX_BASE_URL: `${fake.url}/v1`,
    GOOGLE_APPLICATION_CREDENTIALS: google.serviceAccountFile(dir),
  };
  return { fake, google, dir, env };
}

test("a run reaches Claude through Vertex AI with a service account's token and no Anthropic key", async (t) => {
  const { fake, google, dir, env } = await vertexEnv(t, [{ text: "Hello from Vertex" }]);
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5@20250929", "hi"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello from Vertex/);
  const [request] = fake.requests;
  assert.equal(request.path, "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict");
  assert.equal(request.body.anthropic_version, "vertex-2023-10-16");
  assert.equal(request.body.model, undefined);
  assert.equal(request.headers.authorization, `Bearer ${google.issued[0]}`);
  assert.equal(google.requests[0].claims?.aud, google.tokenUri);
});

test("without a credentials file, a run on a Google machine takes the metadata server's token", async (t) => {
  const { fake, dir, env } = await vertexEnv(t, [{ text: "Hello from the metadata server" }]);
  const cloud = await startFakeGoogleCloud();
  t.after(() => cloud.close());
  const { GOOGLE_APPLICATION_CREDENTIALS, ...rest } = env;
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { ...rest, HOME: tempDir(t), GCE_METADATA_HOST: cloud.metadataHost }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello from the metadata server/);
  assert.equal(fake.requests[0].headers.authorization, "Bearer ya29.metadata-1");
  assert.equal(cloud.requests[0].headers["metadata-flavor"], "Google");
});

test("an external account's federated token, impersonating a service account, reaches Claude through Vertex AI", async (t) => {
  const { fake, dir, env } = await vertexEnv(t, [{ text: "Hello, federated" }]);
  const cloud = await startFakeGoogleCloud();
  t.after(() => cloud.close());
  const subject = join(dir, "oidc-token");
  writeFileSync(subject, cloud.subjectToken);
  const file = join(dir, "external.json");
  writeFileSync(
    file,
    JSON.stringify({
      type: "external_account",
      audience: "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/ci",
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: cloud.stsUrl,
      service_account_impersonation_url: cloud.impersonationUrl("claude@my-project.iam.gserviceaccount.com"),
      credential_source: { file: subject },
    }),
  );
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { ...env, GOOGLE_APPLICATION_CREDENTIALS: file }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello, federated/);
  assert.equal(fake.requests[0].headers.authorization, "Bearer ya29.impersonated-1");
  assert.deepEqual(cloud.requests.map((request) => request.path), ["/v1/token", "/v1/projects/-/serviceAccounts/claude@my-project.iam.gserviceaccount.com:generateAccessToken"]);
});

test("CLOUD_ML_REGION picks the location, and a gateway with CLAUDE_CODE_SKIP_VERTEX_AUTH gets no Google token", async (t) => {
  const { fake, google, dir, env } = await vertexEnv(t, [{ text: "via the gateway" }]);
  const run = await harness(["run", "--cwd", dir, "--model", "claude-opus-4-6", "hi"], { ...env, CLOUD_ML_REGION: "global", CLAUDE_CODE_SKIP_VERTEX_AUTH: "1" }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /via the gateway/);
  assert.equal(fake.requests[0].path, "/v1/projects/my-project/locations/global/publishers/anthropic/models/claude-opus-4-6:streamRawPredict");
  assert.equal(fake.requests[0].headers.authorization, undefined);
  assert.equal(google.requests.length, 0);
});

test("without ANTHROPIC_VERTEX_PROJECT_ID, or with credentials that are not there, the run says so in one line", async (t) => {
  const { fake, dir, env } = await vertexEnv(t, [{ text: "never" }]);
  const noProject = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { ...env, ANTHROPIC_VERTEX_PROJECT_ID: "" }).result;
  assert.notEqual(noProject.code, 0);
  assert.match(noProject.stderr, /ANTHROPIC_VERTEX_PROJECT_ID is not/);
  assert.doesNotMatch(noProject.stderr, /ANTHROPIC_API_KEY/);

  const missing = `${dir}/gone.json`;
  const noFile = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { ...env, GOOGLE_APPLICATION_CREDENTIALS: missing }).result;
  assert.notEqual(noFile.code, 0);
  assert.match(noFile.stdout + noFile.stderr, new RegExp(`no Google credentials for Vertex AI: ${missing} \\(GOOGLE_APPLICATION_CREDENTIALS\\) does not exist`));
  assert.equal(fake.requests.length, 0);
});

test("the switches may come from the env of ~/.claude/settings.json, as Claude Code's users set them", async (t) => {
  const { fake, dir, env } = await vertexEnv(t, [{ text: "from the settings" }]);
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  const { ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ...vertex } = env;
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: vertex }));
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { HOME: home, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /from the settings/);
  assert.match(fake.requests[0].path, /^\/v1\/projects\/my-project\/locations\/us-east5\/.*:streamRawPredict$/);
});
