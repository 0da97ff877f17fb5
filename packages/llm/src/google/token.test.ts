// Google access tokens from Application Default Credentials, against a fake token endpoint that
// checks the service account's signature as Google does.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { startFakeGoogleToken } from "@harness/test-utils";
import { googleAccessToken, GoogleAuthError } from "./token.ts";

async function setup(t: TestContext) {
  const google = await startFakeGoogleToken();
  const dir = mkdtempSync(join(tmpdir(), "harness-google-"));
  t.after(async () => {
    await google.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { google, dir };
}

test("a service account's signed JWT buys a token, kept until a minute before it expires", async (t) => {
  const { google, dir } = await setup(t);
  const env = { GOOGLE_APPLICATION_CREDENTIALS: google.serviceAccountFile(dir, "bot@p.iam.gserviceaccount.com") };
  let now = Date.now();
  const clock = () => now;
  assert.equal(await googleAccessToken(env, clock), "ya29.fake-1");
  assert.equal(google.requests[0].form.grant_type, "urn:ietf:params:oauth:grant-type:jwt-bearer");
  assert.equal(google.requests[0].claims?.iss, "bot@p.iam.gserviceaccount.com");
  assert.equal(google.requests[0].header?.kid, "key-1");
  now += 3600_000 - 61_000;
  assert.equal(await googleAccessToken(env, clock), "ya29.fake-1", "still fresh");
  now += 2_000;
  assert.equal(await googleAccessToken(env, clock), "ya29.fake-2", "asked again within the last minute");
  assert.equal(google.requests.length, 2);
});

test("a caller that needs a token to last asks again sooner, and others still get the kept one", async (t) => {
  const { google, dir } = await setup(t);
  const env = { GOOGLE_APPLICATION_CREDENTIALS: google.serviceAccountFile(dir) };
  let now = Date.now();
  const clock = () => now;
  const quarter = 15 * 60_000;
  assert.equal(await googleAccessToken(env, clock, quarter), "ya29.fake-1");
  now += 3600_000 - quarter - 1_000;
  assert.equal(await googleAccessToken(env, clock, quarter), "ya29.fake-1", "a quarter of an hour and more left");
  now += 2_000;
  assert.equal(await googleAccessToken(env, clock, quarter), "ya29.fake-2", "less than a quarter of an hour left");
  assert.equal(await googleAccessToken(env, clock), "ya29.fake-2");
  assert.equal(google.requests.length, 2);
});

test("concurrent requests share one token request", async (t) => {
  const { google, dir } = await setup(t);
  const env = { GOOGLE_APPLICATION_CREDENTIALS: google.serviceAccountFile(dir) };
  const tokens = await Promise.all([googleAccessToken(env), googleAccessToken(env), googleAccessToken(env)]);
  assert.deepEqual(tokens, ["ya29.fake-1", "ya29.fake-1", "ya29.fake-1"]);
  assert.equal(google.requests.length, 1);
});

test("gcloud's user credentials, found in the default place under HOME, trade their refresh token", async (t) => {
  const { google, dir } = await setup(t);
  const gcloud = join(dir, ".config", "gcloud");
  (await import("node:fs")).mkdirSync(gcloud, { recursive: true });
  google.authorizedUserFile(gcloud);
  assert.equal(await googleAccessToken({ HOME: dir }), "ya29.fake-1");
  assert.equal(google.requests[0].form.grant_type, "refresh_token");
});

test("a missing, malformed or refused credential is one clear line naming the file and how it was found", async (t) => {
  const { google, dir } = await setup(t);
  const missing = join(dir, "nope.json");
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: missing }), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError);
    assert.equal(error.message, `no Google credentials for Vertex AI: ${missing} (GOOGLE_APPLICATION_CREDENTIALS) does not exist; set GOOGLE_APPLICATION_CREDENTIALS to a credentials file, or run \`gcloud auth application-default login\``);
    return true;
  });

  const garbled = join(dir, "garbled.json");
  writeFileSync(garbled, "{not json");
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: garbled }), /garbled\.json \(GOOGLE_APPLICATION_CREDENTIALS\) are not JSON/);
  const external = join(dir, "external.json");
  writeFileSync(external, JSON.stringify({ type: "external_account_authorized_user" }));
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: external }), /are of type "external_account_authorized_user": Vertex AI here takes a "service_account" key, gcloud's "authorized_user" or "impersonated_service_account" credentials, or an "external_account"$/);
  const badKey = join(dir, "bad-key.json");
  writeFileSync(badKey, JSON.stringify({ type: "service_account", client_email: "a@b", private_key: "nope", token_uri: google.tokenUri }));
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: badKey }), /private_key .* is not a usable RSA key/);

  const file = google.serviceAccountFile(dir);
  google.refuse = { status: 400, error: "invalid_grant", description: "Invalid JWT Signature." };
  await assert.rejects(googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: file }), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError && !error.retryable);
    assert.match(error.message, /^Google refused an access token for the credentials in .*service-account\.json \(GOOGLE_APPLICATION_CREDENTIALS\): http:\/\/127\.0\.0\.1:\d+\/token answered 400: invalid_grant: Invalid JWT Signature\.$/);
    return true;
  });
  google.refuse = undefined;
  assert.equal(await googleAccessToken({ GOOGLE_APPLICATION_CREDENTIALS: file }), "ya29.fake-1", "a refusal is not kept");
});

/** A token endpoint that answers every request with `answer`, and credentials whose token_uri is it. */
async function tokenServer(t: TestContext, dir: string, answer: (res: import("node:http").ServerResponse) => void): Promise<Record<string, string>> {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on("connection", (socket) => t.after(() => socket.destroy()));
  const file = join(dir, "user.json");
  const tokenUri = `http://127.0.0.1:${(server.address() as { port: number }).port}/token`;
  writeFileSync(file, JSON.stringify({ type: "authorized_user", client_id: "c", client_secret: "s", refresh_token: "r", token_uri: tokenUri }));
  return { GOOGLE_APPLICATION_CREDENTIALS: file };
}

test("a token reply that will not end is refused once it outgrows any token, not read into memory", async (t) => {
  const { dir } = await setup(t);
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  const env = await tokenServer(t, dir, (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"access_token":"');
    const more = () => {
      // Far more than a token, and far less than the test could hold: the reader must stop first.
      while (sent < 256 * 1024 * 1024 && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      res.end('"}');
    };
    more();
  });
  await assert.rejects(googleAccessToken(env), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError);
    assert.match(error.message, /answered with more than \d+ (KiB|MiB)/);
    return true;
  });
  assert.ok(sent < 64 * 1024 * 1024, `read ${sent} bytes`);
});

test("a token reply whose access_token cannot go in a header is refused without saying it", async (t) => {
  const { dir } = await setup(t);
  const env = await tokenServer(t, dir, (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: "ya29.secret\r\nX-Injected: 1", expires_in: 3600 })));
  await assert.rejects(googleAccessToken(env), (error: Error) => {
    assert.ok(error instanceof GoogleAuthError);
    assert.doesNotMatch(error.message, /secret/);
    assert.match(error.message, /the access_token .* cannot go in an HTTP header/);
    return true;
  });
});
