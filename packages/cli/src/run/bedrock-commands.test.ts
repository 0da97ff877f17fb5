// `harness run` on Amazon Bedrock with the AWS credentials companies hand out through commands: a
// profile's credential_process, and Claude Code's awsCredentialExport and awsAuthRefresh settings.
// The fake server checks each request's SigV4 signature, so keys that a command got wrong fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AWS_KEYS, startFakeAnthropic } from "@harness/test-utils";
import { bedrockRunEnv, harness, tempDir, withFake } from "../test-support.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const EXPORTED = { accessKeyId: "ASIAEXPORTED0001", secretAccessKey: "exported/secret", sessionToken: "exported-session-token" };

type T = { after(fn: () => unknown): void };

async function bedrock(t: T, replies: { text: string }[]) {
  const fake = await withFake(t, startFakeAnthropic({ replies, awsKeys: [FAKE_AWS_KEYS, EXPORTED] }));
  const home = tempDir(t);
  mkdirSync(join(home, ".aws"));
  mkdirSync(join(home, ".claude"));
  const env = { ...bedrockRunEnv(fake.url), HOME: home };
  return { fake, home, env, dir: tempDir(t) };
}

/** An executable sh script `name` in `dir`. */
function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

const processJson = (secret: string) => `printf '%s' '{"Version": 1, "AccessKeyId": "${FAKE_AWS_KEYS.accessKeyId}", "SecretAccessKey": "${secret}"}'`;

test("a profile whose keys a credential_process prints serves a run; keys it gets wrong are refused by Bedrock", async (t) => {
  const { fake, home, env, dir } = await bedrock(t, [{ text: "Hello by credential_process" }, { text: "never" }]);
  const right = script(home, "right keys", processJson(FAKE_AWS_KEYS.secretAccessKey));
  const wrong = script(home, "wrong-keys", processJson("not-the-secret"));
  writeFileSync(join(home, ".aws", "config"), `[profile corp]\nregion = us-east-1\ncredential_process = "${right}"\n\n[profile broken]\ncredential_process = ${wrong}\n`);
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_PROFILE: "corp" }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello by credential_process/);
  assert.match(String(fake.requests[0].headers.authorization), new RegExp(`^AWS4-HMAC-SHA256 Credential=${FAKE_AWS_KEYS.accessKeyId}/`));

  const refused = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_PROFILE: "broken" }).result;
  assert.notEqual(refused.code, 0);
  assert.match(refused.stdout + refused.stderr, /The request signature we calculated does not match the signature you provided/);
});

test("a credential_process that fails says so, naming the profile and the first line it printed on stderr", async (t) => {
  const { fake, home, env, dir } = await bedrock(t, [{ text: "never" }]);
  const failing = script(home, "failing", `echo "Error loading SSO Token: Token for corp does not exist" >&2\nexit 255`);
  writeFileSync(join(home, ".aws", "config"), `[profile corp]\ncredential_process = ${failing}\n`);
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_PROFILE: "corp" }).result;
  assert.notEqual(run.code, 0);
  assert.match(run.stdout + run.stderr, /credential_process of profile "corp" in .*\.aws\/config failed with exit code 255: Error loading SSO Token: Token for corp does not exist/);
  assert.equal(fake.requests.length, 0);
});

test("awsCredentialExport of the user's settings signs the run's requests, in preference to the AWS files; a project's is not used", async (t) => {
  const { fake, home, env, dir } = await bedrock(t, [{ text: "Hello by export" }, { text: "never" }]);
  writeFileSync(join(home, ".aws", "credentials"), "[default]\naws_access_key_id = AKIAWRONG\naws_secret_access_key = wrong\n");
  const exporter = script(home, "export", `printf '%s' '${JSON.stringify({ Credentials: { AccessKeyId: EXPORTED.accessKeyId, SecretAccessKey: EXPORTED.secretAccessKey, SessionToken: EXPORTED.sessionToken } })}'`);
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ awsCredentialExport: exporter }));
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello by export/);
  assert.match(String(fake.requests[0].headers.authorization), new RegExp(`^AWS4-HMAC-SHA256 Credential=${EXPORTED.accessKeyId}/`));
  assert.equal(fake.requests[0].headers["x-amz-security-token"], EXPORTED.sessionToken);

  const project = tempDir(t);
  mkdirSync(join(project, ".claude"));
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ awsCredentialExport: exporter, awsAuthRefresh: "echo planted" }));
  writeFileSync(join(home, ".claude", "settings.json"), "{}");
  const planted = await harness(["run", "--cwd", project, "--model", MODEL, "hi"], env).result;
  assert.notEqual(planted.code, 0);
  assert.match(planted.stderr, /a project's settings cannot say how the AWS credentials are made; put awsCredentialExport in ~\/\.claude\/settings\.json/);
  assert.match(planted.stdout + planted.stderr, /The security token included in the request is invalid \(unknown access key AKIAWRONG\)/);
  assert.doesNotMatch(planted.stderr, /^planted$/m, "the project's awsAuthRefresh did not run");
});

test("awsAuthRefresh of the user's settings runs when no credentials are found, its output shown, and the run goes on", async (t) => {
  const { fake, home, env, dir } = await bedrock(t, [{ text: "Hello after sign-in" }]);
  const login = script(home, "login", `echo "Open https://device.sso.example/ and enter ABCD-EFGH"\nprintf '[default]\\naws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}\\naws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}\\n' > ${join(home, ".aws", "credentials")}`);
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ awsAuthRefresh: login }));
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello after sign-in/);
  assert.doesNotMatch(run.stdout, /device\.sso/);
  assert.match(run.stderr, /Open https:\/\/device\.sso\.example\/ and enter ABCD-EFGH/);
  assert.equal(fake.requests.length, 1);
});

test("awsCredentialExport or awsAuthRefresh that is no command is named when the settings are read", async (t) => {
  const { home, env, dir } = await bedrock(t, [{ text: "never" }]);
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ awsCredentialExport: ["aws", "sts"], awsAuthRefresh: " " }));
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], env).result;
  assert.match(run.stderr, /settings\.json \(awsCredentialExport\): expected string, got an array/);
  assert.match(run.stderr, /settings\.json \(awsAuthRefresh\): the command must not be empty/);
});
