// Which AWS credentials a Bedrock request goes with, and what a user is told when there are none.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { AwsCredentialsError, bedrockAuth } from "./aws-credentials.ts";

function home(t: TestContext, files: { credentials?: string; config?: string } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-aws-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, ".aws"));
  if (files.credentials !== undefined) writeFileSync(join(dir, ".aws", "credentials"), files.credentials);
  if (files.config !== undefined) writeFileSync(join(dir, ".aws", "config"), files.config);
  return dir;
}

test("a Bedrock API key comes first, then access keys in the environment, with their session token", async (t) => {
  const HOME = home(t);
  assert.deepEqual(await bedrockAuth({ HOME, AWS_BEARER_TOKEN_BEDROCK: "ABSK1", AWS_ACCESS_KEY_ID: "AK" }), { bearer: "ABSK1" });
  assert.deepEqual(await bedrockAuth({ HOME, AWS_ACCESS_KEY_ID: "AK", AWS_SECRET_ACCESS_KEY: "SK", AWS_SESSION_TOKEN: "ST" }), { keys: { accessKeyId: "AK", secretAccessKey: "SK", sessionToken: "ST" } });
  await assert.rejects(bedrockAuth({ HOME, AWS_ACCESS_KEY_ID: "AK" }), /^AwsCredentialsError: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not/);
});

test("else the static keys of AWS_PROFILE (default \"default\") in ~/.aws/credentials", async (t) => {
  const HOME = home(t, { credentials: "[default]\naws_access_key_id = AKDEF\naws_secret_access_key = SKDEF\n\n[work]\n# a comment\naws_access_key_id=AKWORK\naws_secret_access_key=SKWORK\naws_session_token=STWORK\n" });
  assert.deepEqual(await bedrockAuth({ HOME }), { keys: { accessKeyId: "AKDEF", secretAccessKey: "SKDEF" } });
  assert.deepEqual(await bedrockAuth({ HOME, AWS_PROFILE: "work" }), { keys: { accessKeyId: "AKWORK", secretAccessKey: "SKWORK", sessionToken: "STWORK" } });
});

test("no credentials, or a profile that needs SSO, is an error naming what to set", async (t) => {
  const HOME = home(t, { config: "[profile sso-dev]\nsso_session = corp\nregion = us-east-1\n" });
  await assert.rejects(bedrockAuth({ HOME }), (error: unknown) => {
    assert.ok(error instanceof AwsCredentialsError);
    assert.equal(error.message, `no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or aws_access_key_id and aws_secret_access_key for profile "default" in ${join(HOME, ".aws", "credentials")}`);
    return true;
  });
  await assert.rejects(bedrockAuth({ HOME, AWS_PROFILE: "sso-dev" }), /profile "sso-dev" in .*config gets its keys through sso_session, which harness does not follow: export them \(aws configure export-credentials --profile sso-dev --format env\)$/);
});
