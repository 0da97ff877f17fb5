// Bedrock keys from a web identity (EKS's IRSA, GitHub Actions' OIDC), as the AWS SDKs get them:
// the token file that AWS_WEB_IDENTITY_TOKEN_FILE or a profile's web_identity_token_file names,
// traded for a role's keys at STS's AssumeRoleWithWebIdentity (a fake here, which checks the token).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FAKE_AWS_KEYS, type FakeAwsAuth, startFakeAwsAuth, startHttpProxy } from "@harness/test-utils";
import { forgetKeptCredentials } from "./credential-process.ts";
import { bedrockAuth } from "./credentials.ts";

const POD_ARN = "arn:aws:iam::111122223333:role/BedrockPod";
const DEPLOY_ARN = "arn:aws:iam::999988887777:role/Deploy";
const POD = { accessKeyId: "ASIAPOD000000001", secretAccessKey: "pod/secret", sessionToken: "pod-session" };
const DEPLOY = { accessKeyId: "ASIADEPLOY000001", secretAccessKey: "deploy/secret", sessionToken: "deploy-session" };
const TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6YWk6aGFybmVzcyJ9.c2lnbmF0dXJl";
const ROTATED = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyb3RhdGVkIn0.c2lnbmF0dXJlMg";

async function setup(t: TestContext) {
  t.after(forgetKeptCredentials);
  const fake = await startFakeAwsAuth({ ssoAccessToken: "unused", webIdentityTokens: [TOKEN, ROTATED], roles: { [POD_ARN]: POD, [DEPLOY_ARN]: DEPLOY } });
  t.after(() => fake.close());
  const HOME = mkdtempSync(join(tmpdir(), "harness-web-identity-"));
  t.after(() => rmSync(HOME, { recursive: true, force: true }));
  mkdirSync(join(HOME, ".aws"));
  const tokenFile = join(HOME, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`);
  writeFileSync(join(HOME, ".aws", "credentials"), `[default]\naws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}\naws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}\n`);
  writeFileSync(
    join(HOME, ".aws", "config"),
    `[profile pod]\nrole_arn = ${POD_ARN}\nweb_identity_token_file = ${tokenFile}\nrole_session_name = ci-run\nduration_seconds = 1800\nregion = eu-west-1\n\n` +
      `[profile deploy]\nrole_arn = ${DEPLOY_ARN}\nsource_profile = pod\n\n` +
      `[profile tokenless]\nweb_identity_token_file = ${tokenFile}\n`,
  );
  const env = { HOME, AWS_REGION: "us-east-1", AWS_ENDPOINT_URL_STS: fake.url };
  return { fake, HOME, tokenFile, env, irsa: { ...env, AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile, AWS_ROLE_ARN: POD_ARN } };
}

const stsCalls = (fake: FakeAwsAuth) => fake.requests.map((request) => (request.service === "sts" ? request : undefined));

test("AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN trade the token for the role's keys, unsigned, before the AWS files", async (t) => {
  const { fake, irsa } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...irsa, AWS_ROLE_SESSION_NAME: "pod-a" }), { keys: POD });
  assert.deepEqual(stsCalls(fake), [
    { service: "sts", form: { Action: "AssumeRoleWithWebIdentity", Version: "2011-06-15", RoleArn: POD_ARN, RoleSessionName: "pod-a", WebIdentityToken: TOKEN }, signedBy: "", region: "" },
  ]);
  // Kept until a minute before they expire.
  await bedrockAuth({ ...irsa, AWS_ROLE_SESSION_NAME: "pod-a" });
  assert.equal(fake.requests.length, 1);
});

test("keys in the environment come before a web identity", async (t) => {
  const { fake, irsa } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...irsa, AWS_ACCESS_KEY_ID: "AKIAENV", AWS_SECRET_ACCESS_KEY: "env/secret" }), { keys: { accessKeyId: "AKIAENV", secretAccessKey: "env/secret" } });
  assert.equal(fake.requests.length, 0);
});

test("the token file is read again for each trade, since it rotates", async (t) => {
  const { fake, irsa, tokenFile } = await setup(t);
  let clock = Date.now();
  const now = () => clock;
  await bedrockAuth(irsa, {}, { now });
  writeFileSync(tokenFile, ROTATED);
  clock += 2 * 3600_000;
  assert.deepEqual(await bedrockAuth(irsa, {}, { now }), { keys: POD });
  const tokens = stsCalls(fake).map((request) => request?.form.WebIdentityToken);
  assert.deepEqual(tokens, [TOKEN, ROTATED]);
  assert.match(stsCalls(fake)[1]?.form.RoleSessionName ?? "", /^harness-\d+$/);
});

test("a profile's web_identity_token_file and role_arn give its keys, and it may be a source_profile", async (t) => {
  const { fake, env } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "pod" }), { keys: POD });
  assert.deepEqual(stsCalls(fake)[0]?.form, { Action: "AssumeRoleWithWebIdentity", Version: "2011-06-15", RoleArn: POD_ARN, RoleSessionName: "ci-run", WebIdentityToken: TOKEN, DurationSeconds: "1800" });
  forgetKeptCredentials();
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "deploy" }), { keys: DEPLOY });
  const calls = stsCalls(fake).slice(1).map((request) => [request?.form.Action, request?.signedBy]);
  assert.deepEqual(calls, [["AssumeRoleWithWebIdentity", ""], ["AssumeRole", POD.accessKeyId]]);
});

test("what cannot be traded is refused, naming the file, the role and STS's answer, never the token", async (t) => {
  const { fake, HOME, tokenFile, env, irsa } = await setup(t);
  const refused = async (over: Record<string, string>, what: RegExp) => {
    await assert.rejects(bedrockAuth({ ...env, ...over }), (error: Error) => {
      assert.equal(error.name, "AwsCredentialsError");
      assert.match(error.message, what);
      assert.doesNotMatch(error.message, /eyJ/);
      return true;
    });
  };
  await refused({ AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile }, /^AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not: a web identity needs the role it assumes$/);
  await refused({ AWS_ROLE_ARN: POD_ARN }, /^AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not/);
  await refused({ ...irsa, AWS_ROLE_ARN: "BedrockPod" }, /^AWS_ROLE_ARN "BedrockPod" is no IAM role ARN/);
  await refused({ ...irsa, AWS_ROLE_SESSION_NAME: "a b" }, /^AWS_ROLE_SESSION_NAME "a b": it must be 2 to 64 letters, digits or \+=,\.@_-$/);
  await refused({ ...irsa, AWS_WEB_IDENTITY_TOKEN_FILE: join(HOME, "none") }, new RegExp(`^cannot read the web identity token file ${join(HOME, "none")} \\(AWS_WEB_IDENTITY_TOKEN_FILE\\) for role ${POD_ARN}: .*no such file`));
  writeFileSync(join(HOME, "empty"), " \n");
  await refused({ ...irsa, AWS_WEB_IDENTITY_TOKEN_FILE: join(HOME, "empty") }, /the web identity token file .*empty \(AWS_WEB_IDENTITY_TOKEN_FILE\) for role .* is empty$/);
  writeFileSync(join(HOME, "huge"), "eyJ".repeat(10_000));
  await refused({ ...irsa, AWS_WEB_IDENTITY_TOKEN_FILE: join(HOME, "huge") }, /the web identity token file .*huge \(AWS_WEB_IDENTITY_TOKEN_FILE\) for role .* holds more than 20000 bytes, which is no token STS takes$/);
  await refused({ AWS_PROFILE: "tokenless" }, /profile "tokenless" in .*config has web_identity_token_file but no role_arn: name the role the token assumes$/);
  assert.equal(fake.requests.length, 0);
  writeFileSync(tokenFile, "eyJstale.token.here");
  await refused(irsa, new RegExp(`^AWS STS \\(http://127\\.0\\.0\\.1:\\d+\\) refused AssumeRoleWithWebIdentity of ${POD_ARN} with the token in ${tokenFile} \\(AWS_WEB_IDENTITY_TOKEN_FILE\\): 400 InvalidIdentityToken: The web identity token that was passed could not be validated`));
  writeFileSync(tokenFile, TOKEN);
  await refused({ ...irsa, AWS_ROLE_ARN: "arn:aws:iam::111122223333:role/Nobody" }, /refused AssumeRoleWithWebIdentity of arn:aws:iam::111122223333:role\/Nobody with the token in .*: 403 AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity$/);
});

test("STS is asked through the proxy HTTP_PROXY names, as the model's requests go", async (t) => {
  const { fake, irsa } = await setup(t);
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  // A *.test host only the proxy can reach: the keys come back only through it.
  const sts = `http://sts.test:${new URL(fake.url).port}`;
  assert.deepEqual(await bedrockAuth({ ...irsa, AWS_ENDPOINT_URL_STS: sts, HTTP_PROXY: proxy.url }), { keys: POD });
  assert.deepEqual(proxy.seen.map((request) => `${request.method} ${request.target}`), [`POST ${sts}/`]);
});
