// What the server's credentials make of a query, and which of its files hold them, so that
// sessions' commands are kept from them.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeAwsAuth } from "@harness/test-utils";
import { CREDENTIAL_VARIABLES, serverCredentials } from "./query-credentials.ts";

test("the server hides the AWS credentials file and the SSO token cache when it reads a profile for Bedrock, and nothing when keys are given", () => {
  const bedrock = { HOME: "/home/me", CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1" };
  assert.deepEqual(serverCredentials(bedrock).files, [join("/home/me", ".aws", "credentials"), join("/home/me", ".aws", "sso", "cache")]);
  assert.deepEqual(serverCredentials({ ...bedrock, AWS_ACCESS_KEY_ID: "AK", AWS_SECRET_ACCESS_KEY: "SK" }).files, []);
});

test("a token from the metadata server travels without a credentials file, which the runner's Claude Code would stop at", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "harness-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = { HOME: home, CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p" };
  const mint = async () => "ya29.minted";
  assert.deepEqual(await serverCredentials(env, mint).forQuery(), { googleAccessToken: "ya29.minted" });
  const named = await serverCredentials({ ...env, GOOGLE_APPLICATION_CREDENTIALS: "/keys/sa.json" }, mint).forQuery();
  assert.deepEqual(named, { googleAccessToken: "ya29.minted", googleCredentialsFile: "/keys/sa.json" });
});

test("the server trades a web identity for Bedrock keys itself, and hides every token file and the variables that name it", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "harness-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const arn = "arn:aws:iam::111122223333:role/BedrockPod";
  const keys = { accessKeyId: "ASIAPOD000000001", secretAccessKey: "pod/secret", sessionToken: "pod-session" };
  const sts = await startFakeAwsAuth({ ssoAccessToken: "unused", webIdentityTokens: ["eyJpod"], roles: { [arn]: keys } });
  t.after(() => sts.close());
  mkdirSync(join(home, ".aws"));
  writeFileSync(join(home, ".aws", "config"), `[profile ci]\nrole_arn = ${arn}\nweb_identity_token_file = /ci/oidc-token\n`);
  writeFileSync(join(home, "token"), "eyJpod");
  const env = { HOME: home, CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1", AWS_ENDPOINT_URL_STS: sts.url, AWS_WEB_IDENTITY_TOKEN_FILE: join(home, "token"), AWS_ROLE_ARN: arn };
  const credentials = serverCredentials(env);
  assert.deepEqual(credentials.files, [join(home, ".aws", "credentials"), join(home, ".aws", "sso", "cache"), join(home, "token"), "/ci/oidc-token"]);
  assert.deepEqual(await credentials.forQuery(), { awsAccessKeyId: keys.accessKeyId, awsSecretAccessKey: keys.secretAccessKey, awsSessionToken: keys.sessionToken });
  for (const name of ["AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME"]) assert.ok(CREDENTIAL_VARIABLES.includes(name), name);
});
