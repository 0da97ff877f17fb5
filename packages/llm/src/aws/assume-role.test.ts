// Bedrock keys from a profile with role_arn, as the AWS CLI gets them: STS's AssumeRole (a fake
// here, which checks each request's SigV4 signature) signed with the keys of its source_profile or
// of the environment, chained as deep as the profiles go.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FAKE_AWS_KEYS, startFakeAwsAuth } from "@harness/test-utils";
import { stsUrl } from "./assume-role.ts";
import { forgetKeptCredentials } from "./credential-process.ts";
import { bedrockAuth } from "./credentials.ts";
import { profileKeys } from "./profile.ts";

const ADMIN_ARN = "arn:aws:iam::111122223333:role/Admin";
const DEPLOY_ARN = "arn:aws:iam::999988887777:role/Deploy";
const ADMIN = { accessKeyId: "ASIAADMIN0000001", secretAccessKey: "admin/secret", sessionToken: "admin-session" };
const DEPLOY = { accessKeyId: "ASIADEPLOY000001", secretAccessKey: "deploy/secret", sessionToken: "deploy-session" };

const CREDENTIALS = `[base]
aws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}
aws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}

[self]
aws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}
aws_secret_access_key = ${FAKE_AWS_KEYS.secretAccessKey}

[badkeys]
aws_access_key_id = ${FAKE_AWS_KEYS.accessKeyId}
aws_secret_access_key = not-the-secret
`;

const CONFIG = `[profile admin]
role_arn = ${ADMIN_ARN}
source_profile = base
role_session_name = harness-test
external_id = ext-123
duration_seconds = 1800
region = us-west-2

[profile deploy]
role_arn = ${DEPLOY_ARN}
source_profile = admin

[profile self]
role_arn = ${ADMIN_ARN}
source_profile = self

[profile loop-a]
role_arn = ${ADMIN_ARN}
source_profile = loop-b

[profile loop-b]
role_arn = ${ADMIN_ARN}
source_profile = loop-a

[profile mfa]
role_arn = ${ADMIN_ARN}
source_profile = base
mfa_serial = arn:aws:iam::111122223333:mfa/me

[profile env]
role_arn = ${ADMIN_ARN}
credential_source = Environment

[profile ec2]
role_arn = ${ADMIN_ARN}
credential_source = Ec2InstanceMetadata

[profile both]
role_arn = ${ADMIN_ARN}
source_profile = base
credential_source = Environment

[profile orphan]
role_arn = ${ADMIN_ARN}
source_profile = missing

[profile forged]
role_arn = ${ADMIN_ARN}
source_profile = badkeys

[profile denied]
role_arn = arn:aws:iam::111122223333:role/Nobody
source_profile = base

[profile long]
role_arn = ${ADMIN_ARN}
source_profile = base
duration_seconds = a day
`;

async function setup(t: TestContext) {
  t.after(forgetKeptCredentials);
  const fake = await startFakeAwsAuth({ ssoAccessToken: "unused", roles: { [ADMIN_ARN]: ADMIN, [DEPLOY_ARN]: DEPLOY } });
  t.after(() => fake.close());
  const HOME = mkdtempSync(join(tmpdir(), "harness-role-"));
  t.after(() => rmSync(HOME, { recursive: true, force: true }));
  mkdirSync(join(HOME, ".aws"));
  writeFileSync(join(HOME, ".aws", "credentials"), CREDENTIALS);
  writeFileSync(join(HOME, ".aws", "config"), CONFIG);
  return { fake, HOME, env: { HOME, AWS_REGION: "us-east-1", AWS_ENDPOINT_URL_STS: fake.url } };
}

test("a role_arn profile's keys come from STS's AssumeRole, signed with its source_profile's keys, and are kept", async (t) => {
  const { fake, env } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "admin" }), { keys: ADMIN });
  assert.deepEqual(fake.requests, [
    {
      service: "sts",
      form: { Action: "AssumeRole", Version: "2011-06-15", RoleArn: ADMIN_ARN, RoleSessionName: "harness-test", ExternalId: "ext-123", DurationSeconds: "1800" },
      signedBy: FAKE_AWS_KEYS.accessKeyId,
      region: "us-west-2",
    },
  ]);
  await bedrockAuth({ ...env, AWS_PROFILE: "admin" });
  assert.equal(fake.requests.length, 1);
});

test("roles chain: a source_profile that assumes a role signs the next AssumeRole with its keys", async (t) => {
  const { fake, env } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "deploy" }), { keys: DEPLOY });
  const signers = fake.requests.map((request) => request.service === "sts" && [request.form.RoleArn, request.signedBy, request.region]);
  assert.deepEqual(signers, [
    [ADMIN_ARN, FAKE_AWS_KEYS.accessKeyId, "us-west-2"],
    [DEPLOY_ARN, ADMIN.accessKeyId, "us-east-1"],
  ]);
  const named = fake.requests[1].service === "sts" ? fake.requests[1].form.RoleSessionName : "";
  assert.match(named, /^harness-\d+$/);
});

test("a profile that is its own source_profile assumes its role with its own static keys", async (t) => {
  const { env } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "self" }), { keys: ADMIN });
});

test("credential_source = Environment signs AssumeRole with the environment's keys", async (t) => {
  const { fake, env } = await setup(t);
  const keys = await profileKeys({ ...env, AWS_PROFILE: "env", AWS_ACCESS_KEY_ID: FAKE_AWS_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: FAKE_AWS_KEYS.secretAccessKey });
  assert.deepEqual(keys, ADMIN);
  assert.equal(fake.requests.length, 1);
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "env" }), /^AwsCredentialsError: profile "env" in .*config assumes its role with credential_source = Environment, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set$/);
});

test("STS's endpoint is sts.<region>.amazonaws.com unless AWS_ENDPOINT_URL_STS or AWS_ENDPOINT_URL says otherwise", () => {
  assert.equal(stsUrl({}, "us-west-2"), "https://sts.us-west-2.amazonaws.com");
  assert.equal(stsUrl({}, "cn-north-1"), "https://sts.cn-north-1.amazonaws.com.cn");
  assert.equal(stsUrl({ AWS_ENDPOINT_URL: "http://localhost:4566" }, "us-west-2"), "http://localhost:4566");
  assert.equal(stsUrl({ AWS_ENDPOINT_URL: "http://localhost:4566", AWS_ENDPOINT_URL_STS: " http://127.0.0.1:9/ " }, "us-west-2"), "http://127.0.0.1:9");
  assert.throws(() => stsUrl({ AWS_ENDPOINT_URL_STS: "ftp://sts" }, "us-west-2"), /^AwsCredentialsError: AWS_ENDPOINT_URL_STS must be an http\(s\) URL, got "ftp:\/\/sts"$/);
});

test("what harness cannot or must not follow is refused, naming the profile and the setting", async (t) => {
  const { fake, env } = await setup(t);
  const said = (profile: string, what: string) => bedrockAuth({ ...env, AWS_PROFILE: profile }).then(
    () => assert.fail(`profile ${profile} gave keys`),
    (error: Error) => assert.match(error.message, new RegExp(what)),
  );
  await said("mfa", `^profile "mfa" in .*config needs an MFA code \\(mfa_serial\\), which harness cannot ask for: use a credential_process that asks for it, or export the keys \\(aws configure export-credentials --profile mfa --format env\\)$`);
  await said("loop-a", `^profile "loop-a" in .*config: source_profile goes round in a loop \\(loop-a → loop-b → loop-a\\)$`);
  await said("ec2", `^profile "ec2" in .*config has credential_source = Ec2InstanceMetadata: harness takes only Environment there, or a source_profile$`);
  await said("both", `^profile "both" in .*config has both source_profile and credential_source: name one$`);
  await said("orphan", `^profile "orphan" in .*config names source_profile "missing", which is in neither .*credentials nor .*config$`);
  await said("long", `^profile "long" in .*config has duration_seconds "a day": it must be a whole number of seconds from 900 to 43200$`);
  assert.equal(fake.requests.length, 0);
  await said("forged", `^AWS STS \\(http://127\\.0\\.0\\.1:\\d+\\) refused AssumeRole of ${ADMIN_ARN} for profile "forged": 403 SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided$`);
  await said("denied", `^AWS STS \\(http://127\\.0\\.0\\.1:\\d+\\) refused AssumeRole of arn:aws:iam::111122223333:role/Nobody for profile "denied": 403 AccessDenied: User: ${FAKE_AWS_KEYS.accessKeyId} is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::111122223333:role/Nobody$`);
});

test("an STS that cannot be reached or answers what is not keys is an error naming STS, never a key", async (t) => {
  const { env } = await setup(t);
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "admin", AWS_ENDPOINT_URL_STS: "http://127.0.0.1:1" }), /^AwsCredentialsError: could not reach AWS STS \(http:\/\/127\.0\.0\.1:1\) for profile "admin": .+$/);
  const { createServer } = await import("node:http");
  const odd = createServer((_req, res) => res.writeHead(200, { "content-type": "text/xml" }).end(`<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>AK</AccessKeyId><SecretAccessKey>leaked secret</SecretAccessKey><SessionToken>T</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>${"x".repeat(100)}`));
  await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => odd.close(() => resolve())));
  const url = `http://127.0.0.1:${(odd.address() as { port: number }).port}`;
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "admin", AWS_ENDPOINT_URL_STS: url }), (error: Error) => {
    assert.match(error.message, /^AWS STS \(http:\/\/127\.0\.0\.1:\d+\) answered AssumeRole for profile "admin" with a SecretAccessKey that holds a character that cannot go in an HTTP header/);
    assert.doesNotMatch(error.message, /leaked/);
    return true;
  });
});
