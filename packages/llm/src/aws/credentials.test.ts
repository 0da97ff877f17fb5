// Which AWS credentials a Bedrock request goes with, and what a user is told when there are none.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { forgetKeptCredentials } from "./credential-process.ts";
import { AwsCredentialsError, bedrockAuth, refreshBedrockAuth } from "./credentials.ts";

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

test("no credentials, or a profile's web identity without its role, is an error naming what to set", async (t) => {
  const HOME = home(t, { config: "[profile web]\nrole_session_name = ci\nweb_identity_token_file = /var/run/token\nregion = us-east-1\n" });
  await assert.rejects(bedrockAuth({ HOME }), (error: unknown) => {
    assert.ok(error instanceof AwsCredentialsError);
    assert.equal(error.message, `no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or aws_access_key_id and aws_secret_access_key for profile "default" in ${join(HOME, ".aws", "credentials")}`);
    return true;
  });
  await assert.rejects(bedrockAuth({ HOME, AWS_PROFILE: "web" }), /^AwsCredentialsError: profile "web" in .*config has web_identity_token_file but no role_arn: name the role the token assumes$/);
});

/** An executable script in `dir` whose body is `body` (sh). */
function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

const PROCESS_KEYS = (id: string, expiration = "2030-01-01T01:00:00Z") => `printf '%s' '{"Version": 1, "AccessKeyId": "${id}", "SecretAccessKey": "SKPROC", "SessionToken": "STPROC", "Expiration": "${expiration}"}'`;

test("a profile's credential_process runs, its words split as the AWS CLI splits them, and its keys are kept until a minute before they expire", async (t) => {
  t.after(forgetKeptCredentials);
  const HOME = home(t);
  const tools = join(HOME, "my tools");
  mkdirSync(tools);
  const runs = join(HOME, "runs");
  const get = script(tools, "get creds", `echo run >> ${runs}\ntest "$1" = "--role" && test "$2" = "dev team" || exit 9\n${PROCESS_KEYS("ASIAPROC")}`);
  writeFileSync(join(HOME, ".aws", "config"), `[profile work]\nregion = us-east-1\ncredential_process = "${get}" --role 'dev team'\n`);
  let now = Date.parse("2030-01-01T00:00:00Z");
  const lookup = () => bedrockAuth({ HOME, AWS_PROFILE: "work" }, {}, { now: () => now });
  assert.deepEqual(await lookup(), { keys: { accessKeyId: "ASIAPROC", secretAccessKey: "SKPROC", sessionToken: "STPROC" } });
  now += 58 * 60_000;
  await lookup();
  assert.equal(readFileSync(runs, "utf8"), "run\n");
  now += 60_000;
  await lookup();
  assert.equal(readFileSync(runs, "utf8"), "run\nrun\n");
});

test("credential_process may stand in ~/.aws/credentials too, and static keys there come first", async (t) => {
  t.after(forgetKeptCredentials);
  const HOME = home(t);
  const get = script(HOME, "get", PROCESS_KEYS("ASIAFROMCREDS"));
  writeFileSync(join(HOME, ".aws", "credentials"), `[default]\ncredential_process = ${get}\n\n[static]\naws_access_key_id = AKSTATIC\naws_secret_access_key = SKSTATIC\ncredential_process = ${get}\n`);
  const now = () => Date.parse("2030-01-01T00:00:00Z");
  assert.equal(((await bedrockAuth({ HOME }, {}, { now })) as { keys: { accessKeyId: string } }).keys.accessKeyId, "ASIAFROMCREDS");
  assert.equal(((await bedrockAuth({ HOME, AWS_PROFILE: "static" }, {}, { now })) as { keys: { accessKeyId: string } }).keys.accessKeyId, "AKSTATIC");
});

test("a credential_process that fails, hangs or cannot run is an error naming the profile and what happened", async (t) => {
  t.after(forgetKeptCredentials);
  const HOME = home(t);
  const failing = script(HOME, "failing", `echo "Token for corp has expired: run aws sso login" >&2\necho "more detail" >&2\nexit 3`);
  const hanging = script(HOME, "hanging", "sleep 5");
  const config = join(HOME, ".aws", "config");
  writeFileSync(config, `[profile failing]\ncredential_process = ${failing}\n[profile hanging]\ncredential_process = ${hanging}\n[profile missing]\ncredential_process = ${join(HOME, "nowhere")}\n[profile unclosed]\ncredential_process = get "creds\n`);
  const said = (profile: string, what: string) => new RegExp(`^AwsCredentialsError: credential_process of profile "${profile}" in ${config.replace(/[.]/g, "\\.")} ${what}$`);
  await assert.rejects(bedrockAuth({ HOME, AWS_PROFILE: "failing" }), said("failing", "failed with exit code 3: Token for corp has expired: run aws sso login"));
  const started = Date.now();
  await assert.rejects(bedrockAuth({ HOME, AWS_PROFILE: "hanging" }, {}, { timeoutMs: 300 }), said("hanging", "gave no credentials within 0.3 s"));
  assert.ok(Date.now() - started < 3000);
  await assert.rejects(bedrockAuth({ HOME, AWS_PROFILE: "missing" }), said("missing", "could not run: .*ENOENT.*"));
  await assert.rejects(bedrockAuth({ HOME, AWS_PROFILE: "unclosed" }), said("unclosed", "cannot be split into words: no closing quotation"));
});

test("awsCredentialExport's keys come before the AWS files, after keys in the environment", async (t) => {
  t.after(forgetKeptCredentials);
  const HOME = home(t, { credentials: "[default]\naws_access_key_id = AKFILE\naws_secret_access_key = SKFILE\n" });
  const exporter = script(HOME, "export", `printf '%s' '{"Credentials": {"AccessKeyId": "ASIAEXPORT", "SecretAccessKey": "SKEXPORT", "SessionToken": "STEXPORT", "Expiration": "2030-01-01T01:00:00Z"}}'`);
  const now = () => Date.parse("2030-01-01T00:00:00Z");
  // Run through the shell, as Claude Code runs the commands of its settings.
  const credentialExport = `${exporter} | cat`;
  assert.deepEqual(await bedrockAuth({ HOME, PATH: process.env.PATH }, { credentialExport }, { now }), { keys: { accessKeyId: "ASIAEXPORT", secretAccessKey: "SKEXPORT", sessionToken: "STEXPORT" } });
  assert.deepEqual(await bedrockAuth({ HOME, AWS_ACCESS_KEY_ID: "AKENV", AWS_SECRET_ACCESS_KEY: "SKENV" }, { credentialExport }, { now }), { keys: { accessKeyId: "AKENV", secretAccessKey: "SKENV" } });
  await assert.rejects(bedrockAuth({ HOME }, { credentialExport: "exit 4" }, { now }), /^AwsCredentialsError: awsCredentialExport \(exit 4\) failed with exit code 4$/);
});

test("awsAuthRefresh runs when no credentials are found, and the lookup is tried once more", async (t) => {
  t.after(forgetKeptCredentials);
  const HOME = home(t);
  const credentials = join(HOME, ".aws", "credentials");
  const login = script(HOME, "login", `echo "open the browser" \nprintf '[default]\\naws_access_key_id = AKLOGIN\\naws_secret_access_key = SKLOGIN\\n' > ${credentials}`);
  assert.deepEqual(await bedrockAuth({ HOME }, { authRefresh: login }), { keys: { accessKeyId: "AKLOGIN", secretAccessKey: "SKLOGIN" } });

  rmSync(credentials);
  await assert.rejects(bedrockAuth({ HOME }, { authRefresh: "echo nope >&2; exit 2" }), /^AwsCredentialsError: no AWS credentials for Amazon Bedrock: .*; awsAuthRefresh \(echo nope >&2; exit 2\) then failed with exit code 2: nope$/);
  await assert.rejects(bedrockAuth({ HOME }, { authRefresh: "true" }), /^AwsCredentialsError: no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK/);
});

test("refreshing forgets the kept keys and runs awsAuthRefresh: the next lookup runs the credential command again", async (t) => {
  t.after(forgetKeptCredentials);
  const HOME = home(t);
  const runs = join(HOME, "runs");
  const get = script(HOME, "get", `echo run >> ${runs}\n${PROCESS_KEYS("ASIAPROC")}`);
  writeFileSync(join(HOME, ".aws", "config"), `[default]\ncredential_process = ${get}\n`);
  const now = () => Date.parse("2030-01-01T00:00:00Z");
  const refreshed = join(HOME, "refreshed");
  const commands = { authRefresh: `touch ${refreshed}` };
  await bedrockAuth({ HOME }, commands, { now });
  await bedrockAuth({ HOME }, commands, { now });
  assert.equal(readFileSync(runs, "utf8"), "run\n");
  await refreshBedrockAuth({ HOME }, commands);
  assert.ok(existsSync(refreshed));
  await bedrockAuth({ HOME }, commands, { now });
  assert.equal(readFileSync(runs, "utf8"), "run\nrun\n");
});
