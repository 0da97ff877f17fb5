// What the server's credentials make of a query, and which of its files hold them, so that
// sessions' commands are kept from them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { serverCredentials } from "./query-credentials.ts";

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
