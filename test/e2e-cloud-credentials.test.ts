// Under `harness serve`, the cloud credentials (Amazon Bedrock's AWS keys, Vertex AI's Google
// service account) stay with the server: runners get them per query, so a session's commands never
// find them, while the runs still reach the cloud signed or authorised.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FAKE_AWS_KEYS, FAKE_BEDROCK_API_KEY, MinimalClient, startFakeAnthropic, startFakeGoogleCloud, startFakeGoogleToken, startHarnessServer } from "@harness/test-utils";
import { sandboxUnavailable, stopSandbox } from "../packages/agent/src/sandbox/runtime.ts";

const unavailable = await sandboxUnavailable();
await stopSandbox();

const BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const NO_ANTHROPIC = { ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", HARNESS_RETRY_BASE_MS: "10", HARNESS_MODEL_RETRIES: "0" };

type T = { after(fn: () => unknown): void };

async function tempDir(t: T, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A fake model whose first reply runs `command` through Bash, and a server with `env` in front. */
async function serve(t: T, env: Record<string, string>, command = "env", settings?: object) {
  const fake = await startFakeAnthropic({ replies: [{ toolUses: [{ name: "Bash", input: { command, description: "look" } }] }, { text: "done" }] });
  t.after(() => fake.close());
  const dataDir = await tempDir(t, "harness-cloud-");
  if (settings) {
    await mkdir(join(dataDir, "home", ".claude"), { recursive: true });
    await writeFile(join(dataDir, "home", ".claude", "settings.json"), JSON.stringify(settings));
  }
  // "{fake}" in a value stands for the fake model's URL.
  const withFake = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replace("{fake}", fake.url)]));
  const server = await startHarnessServer({ dataDir, env: { ...NO_ANTHROPIC, ...withFake } });
  t.after(() => server.stop());
  return { fake, server };
}

/** Submits a prompt and waits for the run to end; the state at its end. */
async function submit(t: T, url: string) {
  const client = await MinimalClient.connect(url, { userId: "cloud", sessionId: "one" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } });
  client.send({ type: "submit", prompt: "look at the environment" });
  await client.waitForState((s) => s.status !== "running" && s.messages[1] !== undefined && s.messages[1].status !== "running", 30_000, "the run to end");
  return client.state!;
}

test("a Bedrock session's requests are signed with the server's AWS keys, and its Bash sees none of them", async (t) => {
  const { fake, server } = await serve(t, {
    CLAUDE_CODE_USE_BEDROCK: "1",
    AWS_REGION: "us-east-1",
    ANTHROPIC_BEDROCK_BASE_URL: "{fake}",
    AWS_ACCESS_KEY_ID: FAKE_AWS_KEYS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_KEYS.secretAccessKey,
    AWS_SESSION_TOKEN: "",
    AWS_BEARER_TOKEN_BEDROCK: "",
    AWS_PROFILE: "",
    HARNESS_MODEL: BEDROCK_MODEL,
  });
  const state = await submit(t, server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "complete", JSON.stringify(state));
  assert.match(call?.output ?? "", /CLAUDE_CODE_USE_BEDROCK=1/);
  assert.doesNotMatch(call?.output ?? "", /AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AKIAFAKEHARNESS|fake\+secret/);
  assert.equal(fake.requests.length, 2);
  for (const request of fake.requests) assert.match(String(request.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIAFAKEHARNESS00001\//);
});

test("a Bedrock API key travels the same way", async (t) => {
  const { fake, server } = await serve(t, {
    CLAUDE_CODE_USE_BEDROCK: "1",
    AWS_REGION: "us-east-1",
    ANTHROPIC_BEDROCK_BASE_URL: "{fake}",
    AWS_ACCESS_KEY_ID: "",
    AWS_SECRET_ACCESS_KEY: "",
    AWS_BEARER_TOKEN_BEDROCK: FAKE_BEDROCK_API_KEY,
    HARNESS_MODEL: BEDROCK_MODEL,
  });
  const state = await submit(t, server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "complete", JSON.stringify(state));
  assert.doesNotMatch(call?.output ?? "", /AWS_BEARER_TOKEN_BEDROCK|ABSKfake/);
  assert.equal(fake.requests.length, 2);
  for (const request of fake.requests) assert.equal(request.headers.authorization, `Bearer ${FAKE_BEDROCK_API_KEY}`);
});

test("a profile's keys in the server's AWS credentials file are sent too, and a server without any says so as the run's error", async (t) => {
  const aws = await tempDir(t, "harness-aws-");
  const file = join(aws, "credentials");
  await writeFile(file, `[bedrock]\naws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}\naws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}\n`);
  const base = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: "{fake}", AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_BEARER_TOKEN_BEDROCK: "", HARNESS_MODEL: BEDROCK_MODEL };
  const profiled = await serve(t, { ...base, AWS_SHARED_CREDENTIALS_FILE: file, AWS_PROFILE: "bedrock" });
  const state = await submit(t, profiled.server.url);
  assert.equal(state.messages[1].toolCalls?.[0]?.status, "complete", JSON.stringify(state));
  assert.match(String(profiled.fake.requests[0].headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIAFAKEHARNESS00001\//);

  const none = await serve(t, { ...base, AWS_SHARED_CREDENTIALS_FILE: join(aws, "gone"), AWS_PROFILE: "" });
  const failed = await submit(t, none.server.url);
  assert.equal(failed.status, "error");
  assert.match(failed.error ?? "", /the server has no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  assert.match(failed.error ?? "", /where `harness serve` runs/);
  assert.equal(none.fake.requests.length, 0);
});

/** An executable script in `dir` that notes in `dir`/ran whether a runner (whose environment names
 * the paths the sandbox hides) or the server ran it, then prints `json`. */
async function credentialScript(dir: string, name: string, json: object): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\nif [ -n "$HARNESS_SANDBOX_HIDE" ]; then echo runner >> ${join(dir, "ran")}; else echo server >> ${join(dir, "ran")}; fi\nprintf '%s' '${JSON.stringify(json)}'\n`, { mode: 0o755 });
  return path;
}

test("a profile's credential_process, or the settings' awsCredentialExport, is run by the server, and its runs get only the keys", async (t) => {
  const aws = await tempDir(t, "harness-aws-");
  const config = join(aws, "config");
  const proc = await credentialScript(aws, "process", { Version: 1, AccessKeyId: FAKE_AWS_KEYS.accessKeyId, SecretAccessKey: FAKE_AWS_KEYS.secretAccessKey, Expiration: new Date(Date.now() + 3600_000).toISOString() });
  await writeFile(config, `[profile corp]\ncredential_process = ${proc}\n`);
  const base = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: "{fake}", AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_SESSION_TOKEN: "", AWS_BEARER_TOKEN_BEDROCK: "", HARNESS_MODEL: BEDROCK_MODEL, AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: join(aws, "none"), AWS_PROFILE: "corp" };
  const profiled = await serve(t, base);
  const state = await submit(t, profiled.server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "complete", JSON.stringify(state));
  assert.doesNotMatch(call?.output ?? "", /AKIAFAKEHARNESS|fake\+secret/);
  assert.equal(profiled.fake.requests.length, 2);
  for (const request of profiled.fake.requests) assert.match(String(request.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIAFAKEHARNESS00001\//);
  // Once, by the server: the keys were kept for the second request.
  assert.equal(await readFile(join(aws, "ran"), "utf8"), "server\n");

  const exporter = await credentialScript(aws, "export", { Credentials: { AccessKeyId: FAKE_AWS_KEYS.accessKeyId, SecretAccessKey: FAKE_AWS_KEYS.secretAccessKey, SessionToken: "exported-session-token" } });
  const exported = await serve(t, base, "env", { awsCredentialExport: exporter });
  const second = await submit(t, exported.server.url);
  assert.equal(second.messages[1].toolCalls?.[0]?.status, "complete", JSON.stringify(second));
  assert.equal(exported.fake.requests.length, 2);
  for (const request of exported.fake.requests) assert.equal(request.headers["x-amz-security-token"], "exported-session-token");
  assert.equal(await readFile(join(aws, "ran"), "utf8"), "server\nserver\n");
});

async function vertexEnv(t: T) {
  const google = await startFakeGoogleToken();
  t.after(() => google.close());
  const keys = await tempDir(t, "harness-google-");
  const file = google.serviceAccountFile(keys);
  const env = { CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "my-project", ANTHROPIC_VERTEX_BASE_URL: "{fake}/v1", GOOGLE_APPLICATION_CREDENTIALS: file, HARNESS_MODEL: "claude-sonnet-4-5@20250929" };
  return { google, file, env };
}

test("a Vertex session's requests carry a token the server minted, and its Bash sees neither the token nor the key file", async (t) => {
  const { google, file, env } = await vertexEnv(t);
  const { fake, server } = await serve(t, env);
  const state = await submit(t, server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "complete", JSON.stringify(state));
  assert.match(call?.output ?? "", /CLAUDE_CODE_USE_VERTEX=1/);
  assert.doesNotMatch(call?.output ?? "", /GOOGLE_APPLICATION_CREDENTIALS|ya29\./);
  // The key file's path shows only among the paths the sandbox hides (HARNESS_SANDBOX_HIDE).
  assert.deepEqual((call?.output ?? "").split("\n").filter((line) => line.includes(file)).map((line) => line.split("=")[0]), ["HARNESS_SANDBOX_HIDE"]);
  assert.equal(fake.requests.length, 2);
  // One token, minted once by the server, served both requests.
  assert.equal(google.issued.length, 1);
  for (const request of fake.requests) assert.equal(request.headers.authorization, `Bearer ${google.issued[0]}`);
});

test("an external account's token is minted by the server, and its subject token file is hidden with the credentials file", async (t) => {
  const cloud = await startFakeGoogleCloud();
  t.after(() => cloud.close());
  const keys = await tempDir(t, "harness-google-");
  const subject = join(keys, "oidc-token");
  await writeFile(subject, cloud.subjectToken);
  const file = join(keys, "external.json");
  const audience = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/ci";
  await writeFile(file, JSON.stringify({ type: "external_account", audience, subject_token_type: "urn:ietf:params:oauth:token-type:jwt", token_url: cloud.stsUrl, credential_source: { file: subject } }));
  const { env } = await vertexEnv(t);
  const { fake, server } = await serve(t, { ...env, GOOGLE_APPLICATION_CREDENTIALS: file });
  const state = await submit(t, server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "complete", JSON.stringify(state));
  const hidden = (call?.output ?? "").split("\n").find((line) => line.startsWith("HARNESS_SANDBOX_HIDE="));
  assert.ok(hidden?.split("=")[1].split(":").includes(subject), hidden);
  for (const request of fake.requests) assert.equal(request.headers.authorization, "Bearer ya29.sts-1");
});

test("a token server that refuses the server's credentials fails the run, saying so", async (t) => {
  const { google, env } = await vertexEnv(t);
  google.refuse = { status: 400, error: "invalid_grant", description: "Invalid JWT Signature." };
  const { fake, server } = await serve(t, env);
  const state = await submit(t, server.url);
  assert.equal(state.status, "error");
  assert.match(state.error ?? "", /the server could not get a Google access token for Vertex AI: Google refused an access token for the credentials in .*GOOGLE_APPLICATION_CREDENTIALS.*invalid_grant: Invalid JWT Signature\./);
  assert.equal(fake.requests.length, 0);
});

test("with the sandbox on, a session's commands cannot read the server's Google key file", { skip: unavailable ? `the sandbox cannot run here: ${unavailable}` : false }, async (t) => {
  const { google, file, env } = await vertexEnv(t);
  const { fake, server } = await serve(t, env, `cat ${file}`, { sandbox: { enabled: true } });
  const state = await submit(t, server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "error", JSON.stringify(state));
  assert.doesNotMatch(call?.output ?? "", /private_key/);
  assert.equal(fake.requests.length, 2);
  assert.equal(fake.requests[0].headers.authorization, `Bearer ${google.issued[0]}`);
});

test("with the sandbox on, a session's commands cannot read the AWS credentials file the server reads its profile from", { skip: unavailable ? `the sandbox cannot run here: ${unavailable}` : false }, async (t) => {
  const aws = await tempDir(t, "harness-aws-");
  const file = join(aws, "credentials");
  await writeFile(file, `[default]\naws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}\naws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}\n`);
  const { fake, server } = await serve(
    t,
    { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", ANTHROPIC_BEDROCK_BASE_URL: "{fake}", AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_BEARER_TOKEN_BEDROCK: "", AWS_PROFILE: "", AWS_SHARED_CREDENTIALS_FILE: file, HARNESS_MODEL: BEDROCK_MODEL },
    `cat ${file}`,
    { sandbox: { enabled: true } },
  );
  const state = await submit(t, server.url);
  const call = state.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "error", JSON.stringify(state));
  assert.doesNotMatch(call?.output ?? "", /aws_secret_access_key/);
  assert.equal(fake.requests.length, 2);
});
