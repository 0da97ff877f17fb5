// Application Default Credentials beyond a key file: the metadata server, external accounts
// (workload identity federation) and impersonated service accounts, against fake Google servers.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { startFakeGoogleCloud, startFakeGoogleToken } from "@harness/test-utils";
import { googleAccessToken, GoogleAuthError } from "./token.ts";

async function setup(t: TestContext) {
  const cloud = await startFakeGoogleCloud();
  const dir = mkdtempSync(join(tmpdir(), "harness-google-"));
  t.after(async () => {
    await cloud.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const write = (name: string, value: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return file;
  };
  return { cloud, dir, write };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const AUDIENCE = "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/github";
const JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt";

test("without a credentials file, the metadata server's token is used, and kept until a minute before it expires", async (t) => {
  const { cloud, dir } = await setup(t);
  const env = { HOME: dir, GCE_METADATA_HOST: cloud.metadataHost };
  let now = Date.now();
  const clock = () => now;
  assert.equal(await googleAccessToken(env, clock), "ya29.metadata-1");
  assert.equal(cloud.requests[0].headers["metadata-flavor"], "Google");
  now += 3600_000 - 61_000;
  assert.equal(await googleAccessToken(env, clock), "ya29.metadata-1");
  now += 2_000;
  assert.equal(await googleAccessToken(env, clock), "ya29.metadata-2");
  assert.equal(cloud.requests.length, 2);
});

test("GCE_METADATA_IP names the metadata server too, and a refusal says what it answered", async (t) => {
  const { cloud, dir } = await setup(t);
  cloud.refuse = { route: "metadata", status: 404, body: "service account default not found" };
  await assert.rejects(googleAccessToken({ HOME: dir, GCE_METADATA_IP: cloud.metadataHost }), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError && !error.retryable);
    assert.match(error.message, new RegExp(`^the metadata server at ${cloud.metadataHost} gave no Google access token: it answered 404: "service account default not found"$`));
    return true;
  });
});

test("with no credentials file and no metadata server, the error fails fast and lists what was tried", async (t) => {
  const { dir } = await setup(t);
  const host = `127.0.0.1:${await closedPort()}`;
  const started = Date.now();
  await assert.rejects(googleAccessToken({ HOME: dir, GCE_METADATA_HOST: host }), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError);
    const file = join(dir, ".config", "gcloud", "application_default_credentials.json");
    assert.equal(
      error.message,
      `no Google credentials for Vertex AI: GOOGLE_APPLICATION_CREDENTIALS is not set, ${file} (gcloud's application default credentials) does not exist, and no metadata server answered at ${host} (GCE_METADATA_HOST); set GOOGLE_APPLICATION_CREDENTIALS to a credentials file, or run \`gcloud auth application-default login\``,
    );
    return true;
  });
  assert.ok(Date.now() - started < 5_000);
});

test("an external account trades a file's subject token at the STS token_url", async (t) => {
  const { cloud, write } = await setup(t);
  const subject = write("oidc-token", `${cloud.subjectToken}\n`);
  const file = write("external.json", { type: "external_account", audience: AUDIENCE, subject_token_type: JWT_TYPE, token_url: cloud.stsUrl, credential_source: { file: subject } });
  assert.equal(await googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: file }), "ya29.sts-1");
  const [exchange] = cloud.requests;
  assert.deepEqual(exchange.form, {
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    audience: AUDIENCE,
    scope: "https://www.googleapis.com/auth/cloud-platform",
    requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
    subject_token: cloud.subjectToken,
    subject_token_type: JWT_TYPE,
  });
  assert.equal(await googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: file }), "ya29.sts-1", "kept");
});

test("an external account reads a JSON subject token from a URL, then impersonates its service account", async (t) => {
  const { cloud, write } = await setup(t);
  const file = write("external.json", {
    type: "external_account",
    audience: AUDIENCE,
    subject_token_type: JWT_TYPE,
    token_url: cloud.stsUrl,
    service_account_impersonation_url: cloud.impersonationUrl("runner@p.iam.gserviceaccount.com"),
    credential_source: { url: `${cloud.subjectTokenUrl}?format=json`, headers: { "x-identity": "yes" }, format: { type: "json", subject_token_field_name: "id_token" } },
  });
  assert.equal(await googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: file }), "ya29.impersonated-1");
  const [subject, exchange, impersonate] = cloud.requests;
  assert.equal(subject.headers["x-identity"], "yes");
  assert.equal(exchange.form?.subject_token, cloud.subjectToken);
  assert.equal(impersonate.path, "/v1/projects/-/serviceAccounts/runner@p.iam.gserviceaccount.com:generateAccessToken");
  assert.equal(impersonate.headers.authorization, "Bearer ya29.sts-1");
  assert.deepEqual(impersonate.json, { scope: ["https://www.googleapis.com/auth/cloud-platform"], lifetime: "3600s" });
});

test("an external account's refusals name what failed, never the subject token", async (t) => {
  const { cloud, dir, write } = await setup(t);
  const base = { type: "external_account", audience: AUDIENCE, subject_token_type: JWT_TYPE, token_url: cloud.stsUrl };
  const missing = join(dir, "gone");
  const noFile = write("a.json", { ...base, credential_source: { file: missing } });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: noFile }), new RegExp(`cannot read the subject token file ${missing} of the external account in .*a\\.json`));

  const noField = write("b.json", { ...base, credential_source: { url: `${cloud.subjectTokenUrl}?format=json`, format: { type: "json", subject_token_field_name: "access_token" } } });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: noField }), /the subject token from http:\/\/127\.0\.0\.1:\d+\/subject-token\?format=json has no string field "access_token"/);

  const subject = write("token", cloud.subjectToken);
  const refused = write("c.json", { ...base, credential_source: { file: subject } });
  cloud.refuse = { route: "sts", status: 400, body: { error: "invalid_grant", error_description: "The audience in ID Token does not match the expected audience." } };
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: refused }), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError && !error.retryable);
    assert.match(error.message, /^Google refused an access token for the credentials in .*c\.json \(GOOGLE_APPLICATION_CREDENTIALS\): http:\/\/127\.0\.0\.1:\d+\/v1\/token answered 400: invalid_grant: The audience in ID Token does not match the expected audience\.$/);
    assert.doesNotMatch(error.message, /fake-subject/);
    return true;
  });

  const aws = write("d.json", { ...base, credential_source: { environment_id: "aws1", region_url: "http://169.254.169.254/latest/meta-data/placement/availability-zone" } });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: aws }), /takes its subject token from AWS \(credential_source\.environment_id "aws1"\), which Harness does not support yet: use a file- or URL-sourced credential_source/);
  const executable = write("e.json", { ...base, credential_source: { executable: { command: "/bin/id-token" } } });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: executable }), /takes its subject token from an executable \(credential_source\.executable\), which Harness does not support yet/);
  const noUrl = write("f.json", { ...base, token_url: "file:///etc/passwd", credential_source: { file: subject } });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: noUrl }), /have a token_url that is not an http\(s\) URL: "file:\/\/\/etc\/passwd"/);
});

test("an impersonated service account from gcloud trades its source credentials, then asks IAM for the target's token", async (t) => {
  const { cloud, write } = await setup(t);
  const google = await startFakeGoogleToken();
  t.after(() => google.close());
  const source = { type: "authorized_user", client_id: "c.apps.googleusercontent.com", client_secret: "s", refresh_token: "1//fake-refresh-token", token_uri: google.tokenUri };
  const delegates = ["projects/-/serviceAccounts/middle@p.iam.gserviceaccount.com"];
  const file = write("impersonated.json", { type: "impersonated_service_account", service_account_impersonation_url: cloud.impersonationUrl("target@p.iam.gserviceaccount.com"), delegates, source_credentials: source });
  assert.equal(await googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: file }), "ya29.impersonated-1");
  assert.equal(google.requests[0].form.grant_type, "refresh_token");
  const [impersonate] = cloud.requests;
  assert.equal(impersonate.headers.authorization, `Bearer ${google.issued[0]}`);
  assert.deepEqual(impersonate.json, { scope: ["https://www.googleapis.com/auth/cloud-platform"], lifetime: "3600s", delegates });

  cloud.refuse = { route: "iam", status: 403, body: { error: { code: 403, message: "Permission 'iam.serviceAccounts.getAccessToken' denied", status: "PERMISSION_DENIED" } } };
  const other = write("other.json", { type: "impersonated_service_account", service_account_impersonation_url: cloud.impersonationUrl("x@p.iam.gserviceaccount.com"), source_credentials: source });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: other }), /^GoogleAuthError: Google refused an access token for the credentials in .*other\.json \(GOOGLE_APPLICATION_CREDENTIALS\): http:\/\/127\.0\.0\.1:\d+\/v1\/projects\/-\/serviceAccounts\/x@p\.iam\.gserviceaccount\.com:generateAccessToken answered 403: PERMISSION_DENIED: Permission 'iam\.serviceAccounts\.getAccessToken' denied$/);
  const noSource = write("none.json", { type: "impersonated_service_account", service_account_impersonation_url: cloud.impersonationUrl("x@p.iam.gserviceaccount.com") });
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: noSource }), /the Google credentials in .*none\.json \(GOOGLE_APPLICATION_CREDENTIALS\) have no "source_credentials" object/);
});
