// Which of the server's files hold the model credentials it reads, so that sessions' commands are
// kept from them.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { serverCredentials } from "./query-credentials.ts";

test("the server hides the AWS credentials file and the SSO token cache when it reads a profile for Bedrock, and nothing when keys are given", () => {
  const bedrock = { HOME: "/home/me", CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1" };
  assert.deepEqual(serverCredentials(bedrock).files, [join("/home/me", ".aws", "credentials"), join("/home/me", ".aws", "sso", "cache")]);
  assert.deepEqual(serverCredentials({ ...bedrock, AWS_ACCESS_KEY_ID: "AK", AWS_SECRET_ACCESS_KEY: "SK" }).files, []);
});
