// `harness run` on Amazon Bedrock with the AWS profiles companies hand out: an SSO sign-in
// (`aws sso login`'s cached token, traded at the portal), a role assumed from it through STS, and a
// pod's web identity (EKS IRSA's token file, traded at STS's AssumeRoleWithWebIdentity).
// The fakes check the token, STS's signature and then Bedrock's, so keys passed on wrongly fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, startFakeAwsAuth } from "@harness/test-utils";
import { bedrockRunEnv, harness, tempDir, withFake } from "../test-support.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const TOKEN = "aoaAAAAfake-sso-access-token";
const DEPLOY_ARN = "arn:aws:iam::999988887777:role/BedrockDeploy";
const SSO_KEYS = { accessKeyId: "ASIASSODEV000001", secretAccessKey: "sso/dev/secret", sessionToken: "sso-dev-session" };
const DEPLOY_KEYS = { accessKeyId: "ASIADEPLOY000001", secretAccessKey: "deploy/secret", sessionToken: "deploy-session" };

const CONFIG = `[profile dev]
sso_session = corp
sso_account_id = 111122223333
sso_role_name = Developer

[sso-session corp]
sso_start_url = https://corp.awsapps.com/start
sso_region = us-east-1

[profile deploy]
role_arn = ${DEPLOY_ARN}
source_profile = dev
`;

type T = { after(fn: () => unknown): void };

async function setup(t: T, expiresAt: string) {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hello by an assumed role" }], awsKeys: [DEPLOY_KEYS] }));
  const auth = await startFakeAwsAuth({ ssoAccessToken: TOKEN, roles: { "111122223333/Developer": SSO_KEYS, [DEPLOY_ARN]: DEPLOY_KEYS }, callers: [] });
  t.after(() => auth.close());
  const home = tempDir(t);
  mkdirSync(join(home, ".aws", "sso", "cache"), { recursive: true });
  writeFileSync(join(home, ".aws", "config"), CONFIG);
  const cache = join(home, ".aws", "sso", "cache", `${createHash("sha1").update("corp").digest("hex")}.json`);
  writeFileSync(cache, JSON.stringify({ startUrl: "https://corp.awsapps.com/start", region: "us-east-1", accessToken: TOKEN, expiresAt }));
  const env = { ...bedrockRunEnv(fake.url), HOME: home, AWS_ENDPOINT_URL_SSO: auth.url, AWS_ENDPOINT_URL_STS: auth.url };
  return { fake, auth, env, dir: tempDir(t) };
}

test("a role assumed from an SSO profile's keys signs the run's Bedrock requests", async (t) => {
  const { fake, auth, env, dir } = await setup(t, "2099-01-01T00:00:00Z");
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_PROFILE: "deploy" }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello by an assumed role/);
  assert.deepEqual(
    auth.requests.map((request) => (request.service === "sso" ? [request.accountId, request.roleName] : [request.form.RoleArn, request.signedBy])),
    [["111122223333", "Developer"], [DEPLOY_ARN, SSO_KEYS.accessKeyId]],
  );
  assert.match(String(fake.requests[0].headers.authorization), new RegExp(`^AWS4-HMAC-SHA256 Credential=${DEPLOY_KEYS.accessKeyId}/`));
  assert.equal(fake.requests[0].headers["x-amz-security-token"], DEPLOY_KEYS.sessionToken);
});

test("an expired SSO sign-in says to run aws sso login for the profile, and nothing is asked of AWS", async (t) => {
  const { fake, auth, env, dir } = await setup(t, "2020-01-01T00:00:00Z");
  const run = await harness(["run", "--cwd", dir, "--model", MODEL, "hi"], { ...env, AWS_PROFILE: "dev" }).result;
  assert.notEqual(run.code, 0);
  assert.match(run.stdout + run.stderr, /the SSO token of sso-session "corp" \(profile "dev"\) expired at 2020-01-01T00:00:00Z: run `aws sso login --profile dev`/);
  assert.doesNotMatch(run.stdout + run.stderr, new RegExp(TOKEN));
  assert.equal(auth.requests.length, 0);
  assert.equal(fake.requests.length, 0);
});

test("a pod's web identity (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN) is traded at STS for the keys that sign the run", async (t) => {
  const POD_ARN = "arn:aws:iam::111122223333:role/BedrockPod";
  const POD_KEYS = { accessKeyId: "ASIAPOD000000001", secretAccessKey: "pod/secret", sessionToken: "pod-session" };
  const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2ln";
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hello by a web identity" }], awsKeys: [POD_KEYS] }));
  const auth = await startFakeAwsAuth({ ssoAccessToken: TOKEN, webIdentityTokens: [jwt], roles: { [POD_ARN]: POD_KEYS }, callers: [] });
  t.after(() => auth.close());
  const home = tempDir(t);
  const tokenFile = join(home, "token");
  writeFileSync(tokenFile, jwt);
  const env = { ...bedrockRunEnv(fake.url), HOME: home, AWS_ENDPOINT_URL_STS: auth.url, AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile, AWS_ROLE_ARN: POD_ARN };
  const run = await harness(["run", "--cwd", tempDir(t), "--model", MODEL, "hi"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Hello by a web identity/);
  assert.deepEqual(auth.requests.map((request) => request.service === "sts" && [request.form.Action, request.form.RoleArn, request.form.WebIdentityToken]), [["AssumeRoleWithWebIdentity", POD_ARN, jwt]]);
  assert.match(String(fake.requests[0].headers.authorization), new RegExp(`^AWS4-HMAC-SHA256 Credential=${POD_KEYS.accessKeyId}/`));
  assert.equal(fake.requests[0].headers["x-amz-security-token"], POD_KEYS.sessionToken);

  writeFileSync(tokenFile, "eyJrevoked.token.value");
  const refused = await harness(["run", "--cwd", tempDir(t), "--model", MODEL, "hi"], env).result;
  assert.notEqual(refused.code, 0);
  assert.match(refused.stdout + refused.stderr, new RegExp(`refused AssumeRoleWithWebIdentity of ${POD_ARN} with the token in .*token \\(AWS_WEB_IDENTITY_TOKEN_FILE\\): 400 InvalidIdentityToken`));
  assert.doesNotMatch(refused.stdout + refused.stderr, /eyJ/);
});
