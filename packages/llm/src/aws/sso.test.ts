// Bedrock keys from an SSO profile, as the AWS CLI gets them: the token `aws sso login` cached,
// traded at the IAM Identity Center portal (a fake here) for the role's keys.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { startFakeAwsAuth } from "@harness/test-utils";
import { forgetKeptCredentials } from "./credential-process.ts";
import { bedrockAuth } from "./credentials.ts";
import { ssoPortalUrl } from "./sso.ts";

const TOKEN = "aoaAAAAfake-sso-access-token";
const DEV = { accessKeyId: "ASIASSODEV000001", secretAccessKey: "sso/dev/secret", sessionToken: "sso-dev-session" };
const READER = { accessKeyId: "ASIASSOREADER001", secretAccessKey: "sso/reader/secret", sessionToken: "sso-reader-session" };
const START_URL = "https://legacy.awsapps.com/start";

const CONFIG = `[profile dev]
sso_session = corp
sso_account_id = 111122223333
sso_role_name = Developer
region = us-east-1

[sso-session corp]
sso_start_url = https://corp.awsapps.com/start
sso_region = us-east-1

[profile legacy]
sso_start_url = ${START_URL}
sso_region = eu-west-1
sso_account_id = 444455556666
sso_role_name = Reader

[profile lost]
sso_session = nowhere
sso_account_id = 111122223333
sso_role_name = Developer

[profile half]
sso_session = corp
sso_role_name = Developer
`;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/** A home whose config is CONFIG, with `aws sso login`'s cached tokens for the session and the start URL. */
async function setup(t: TestContext, expiresAt = "2099-01-01T00:00:00Z") {
  t.after(forgetKeptCredentials);
  const fake = await startFakeAwsAuth({ ssoAccessToken: TOKEN, roles: { "111122223333/Developer": DEV, "444455556666/Reader": READER } });
  t.after(() => fake.close());
  const HOME = mkdtempSync(join(tmpdir(), "harness-sso-"));
  t.after(() => rmSync(HOME, { recursive: true, force: true }));
  const cache = join(HOME, ".aws", "sso", "cache");
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(HOME, ".aws", "config"), CONFIG);
  const cached = (name: string, token: string, expires: string) => writeFileSync(join(cache, `${sha1(name)}.json`), JSON.stringify({ startUrl: "x", region: "us-east-1", accessToken: token, expiresAt: expires }));
  cached("corp", TOKEN, expiresAt);
  cached(START_URL, TOKEN, expiresAt);
  return { fake, HOME, cache, cached, env: { HOME, AWS_ENDPOINT_URL_SSO: fake.url } };
}

test("an sso-session profile's keys come from the portal for its account and role, and are kept until a minute before they expire", async (t) => {
  const { fake, env } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "dev" }), { keys: DEV });
  assert.deepEqual(fake.requests, [{ service: "sso", accountId: "111122223333", roleName: "Developer", token: TOKEN }]);
  await bedrockAuth({ ...env, AWS_PROFILE: "dev" });
  assert.equal(fake.requests.length, 1);
});

test("a legacy SSO profile (sso_start_url in the profile) reads the token cached under its start URL", async (t) => {
  const { fake, env } = await setup(t);
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "legacy" }), { keys: READER });
  assert.equal(fake.requests.length, 1);
});

test("the portal is portal.sso.<sso_region>.amazonaws.com unless AWS_ENDPOINT_URL_SSO or AWS_ENDPOINT_URL says otherwise", () => {
  assert.equal(ssoPortalUrl({}, "eu-west-1"), "https://portal.sso.eu-west-1.amazonaws.com");
  assert.equal(ssoPortalUrl({ AWS_ENDPOINT_URL: "http://localhost:4566/" }, "eu-west-1"), "http://localhost:4566");
  assert.equal(ssoPortalUrl({ AWS_ENDPOINT_URL: "http://localhost:4566", AWS_ENDPOINT_URL_SSO: "http://127.0.0.1:9" }, "eu-west-1"), "http://127.0.0.1:9");
  assert.equal(ssoPortalUrl({ AWS_ENDPOINT_URL_SSO: "http://127.0.0.1:9", AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "true" }, "eu-west-1"), "https://portal.sso.eu-west-1.amazonaws.com");
  assert.throws(() => ssoPortalUrl({ AWS_ENDPOINT_URL_SSO: "portal.example" }, "eu-west-1"), /^AwsCredentialsError: AWS_ENDPOINT_URL_SSO must be an http\(s\) URL, got "portal\.example"$/);
});

test("an expired or missing token says to sign in again, naming the profile, and never shows the token", async (t) => {
  const { fake, env, cached, cache } = await setup(t, "2020-01-01T00:00:00Z");
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "dev" }), (error: Error) => {
    assert.match(error.message, /^the SSO token of sso-session "corp" \(profile "dev"\) expired at 2020-01-01T00:00:00Z: run `aws sso login --profile dev`$/);
    assert.doesNotMatch(error.message, new RegExp(TOKEN));
    return true;
  });
  rmSync(join(cache, `${sha1(START_URL)}.json`));
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "legacy" }), /^AwsCredentialsError: no SSO token for https:\/\/legacy\.awsapps\.com\/start \(profile "legacy"\) in .*\.aws\/sso\/cache\/[0-9a-f]{40}\.json: run `aws sso login --profile legacy`$/);
  cached(START_URL, "revoked-token", "2099-01-01T00:00:00Z");
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "legacy" }), (error: Error) => {
    assert.match(error.message, /^the AWS SSO portal \(http:\/\/127\.0\.0\.1:\d+\) refused the token of profile "legacy": 401 UnauthorizedException: Session token not found or invalid: run `aws sso login --profile legacy`$/);
    assert.doesNotMatch(error.message, /revoked-token/);
    return true;
  });
  assert.equal(fake.requests.length, 1);
});

test("awsAuthRefresh (aws sso login) renews an expired token and the lookup goes on", async (t) => {
  const { fake, env, cache } = await setup(t, "2020-01-01T00:00:00Z");
  const fresh = JSON.stringify({ accessToken: TOKEN, expiresAt: "2099-01-01T00:00:00Z" });
  const login = `printf '%s' '${fresh}' > ${join(cache, `${sha1("corp")}.json`)}`;
  assert.deepEqual(await bedrockAuth({ ...env, AWS_PROFILE: "dev" }, { authRefresh: login }), { keys: DEV });
  assert.equal(fake.requests.length, 1);
});

test("SSO settings that are incomplete or name no sso-session are errors naming the setting and the file", async (t) => {
  const { env, HOME } = await setup(t);
  const config = join(HOME, ".aws", "config").replace(/[.]/g, "\\.");
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "lost" }), new RegExp(`^AwsCredentialsError: profile "lost" in ${config} names sso_session "nowhere", which has no \\[sso-session nowhere\\] section there$`));
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "half" }), new RegExp(`^AwsCredentialsError: profile "half" in ${config} has no sso_account_id: an SSO profile needs sso_account_id and sso_role_name$`));
});

test("a portal that cannot be reached, hangs or answers what is not keys is an error naming the portal", async (t) => {
  const { env } = await setup(t);
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "dev", AWS_ENDPOINT_URL_SSO: "http://127.0.0.1:1" }), /^AwsCredentialsError: could not reach the AWS SSO portal \(http:\/\/127\.0\.0\.1:1\) for profile "dev": .+$/);
  const { createServer } = await import("node:http");
  const odd = createServer((req, res) => (req.url?.includes("hang") ? undefined : res.writeHead(200, { "content-type": "application/json" }).end('{"roleCredentials": {"accessKeyId": "AK"}}')));
  await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    odd.closeAllConnections();
    return new Promise<void>((resolve) => odd.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(odd.address() as { port: number }).port}`;
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "dev", AWS_ENDPOINT_URL_SSO: url }), /^AwsCredentialsError: the AWS SSO portal \(http:\/\/127\.0\.0\.1:\d+\) answered for profile "dev" with no roleCredentials\.secretAccessKey$/);
  const started = Date.now();
  await assert.rejects(bedrockAuth({ ...env, AWS_PROFILE: "dev", AWS_ENDPOINT_URL_SSO: `${url}/hang` }, {}, { timeoutMs: 300 }), /^AwsCredentialsError: the AWS SSO portal \(http:\/\/127\.0\.0\.1:\d+\/hang\) gave no answer within 0\.3 s for profile "dev"$/);
  assert.ok(Date.now() - started < 3000);
});
