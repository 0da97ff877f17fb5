// What a credential command's output must be (a profile's credential_process, the awsCredentialExport
// setting), and how long the keys it printed are kept.
import assert from "node:assert/strict";
import { test } from "node:test";
import { splitCommand } from "../credential-command.ts";
import { exportedCredentials, forgetKeptCredentials, keptCredentials, processCredentials } from "./credential-process.ts";

const NOW = Date.parse("2030-01-01T00:00:00Z");
const SOURCE = `credential_process of profile "work" in /home/me/.aws/config`;

test("a credential_process line is split into words as the AWS CLI splits it, without a shell", () => {
  assert.deepEqual(splitCommand(`/opt/my tools/get-creds`), ["/opt/my", "tools/get-creds"]);
  assert.deepEqual(splitCommand(`"/opt/my tools/get-creds" --role 'dev team' a\\ b --say "\\"hi\\" \\x" $HOME;`), ["/opt/my tools/get-creds", "--role", "dev team", "a b", "--say", `"hi" \\x`, "$HOME;"]);
  assert.deepEqual(splitCommand(`  get   ''  `), ["get", ""]);
  assert.throws(() => splitCommand(`get "unclosed`), /no closing quotation/);
  assert.throws(() => splitCommand(`get 'unclosed`), /no closing quotation/);
  assert.throws(() => splitCommand(`get \\`), /ends with a backslash/);
});

test("a process's JSON gives its keys and when they expire", () => {
  const printed = JSON.stringify({ Version: 1, AccessKeyId: "ASIAPROC", SecretAccessKey: "secret", SessionToken: "token", Expiration: "2030-01-01T01:00:00Z" });
  assert.deepEqual(processCredentials(printed, SOURCE, NOW), { keys: { accessKeyId: "ASIAPROC", secretAccessKey: "secret", sessionToken: "token" }, expiresAt: Date.parse("2030-01-01T01:00:00Z") });
  assert.deepEqual(processCredentials(`{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "SK"}\n`, SOURCE, NOW), { keys: { accessKeyId: "AK", secretAccessKey: "SK" } });
});

test("a process's output that is not the AWS CLI's format is an error naming the profile and what is wrong, never a key", () => {
  const bad = (printed: string) => () => processCredentials(printed, SOURCE, NOW);
  const said = (what: string) => new RegExp(`^AwsCredentialsError: credential_process of profile "work" in /home/me/\\.aws/config ${what}$`);
  assert.throws(bad("AccessKeyId=AK secret"), said("printed something that is not JSON"));
  assert.throws(bad("[1]"), said("printed JSON that is not an object"));
  assert.throws(bad(`{"Version": 2, "AccessKeyId": "AK", "SecretAccessKey": "SK"}`), said("printed Version 2: the AWS CLI's credential process format is Version 1"));
  assert.throws(bad(`{"AccessKeyId": "AK", "SecretAccessKey": "SK"}`), said("printed no Version: the AWS CLI's credential process format is Version 1"));
  assert.throws(bad(`{"Version": 1, "AccessKeyId": "AK"}`), said("printed no SecretAccessKey"));
  assert.throws(bad(`{"Version": 1, "AccessKeyId": 7, "SecretAccessKey": "SK"}`), said("printed an AccessKeyId that is not a string"));
  assert.throws(bad(`{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "SK", "Expiration": "tomorrow"}`), said(`printed an Expiration that is not an ISO 8601 time: "tomorrow"`));
  assert.throws(bad(`{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "SK", "Expiration": "2029-12-31T23:00:00Z"}`), said("printed keys that expired at 2029-12-31T23:00:00Z"));
  assert.throws(bad(`{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "two words"}`), said("printed a SecretAccessKey that holds a character that cannot go in an HTTP header .*"));
});

test("awsCredentialExport's JSON has the keys under Credentials, as aws sts prints them", () => {
  const source = "awsCredentialExport (get-keys)";
  const printed = JSON.stringify({ Credentials: { AccessKeyId: "ASIAEXP", SecretAccessKey: "secret", SessionToken: "token", Expiration: "2030-01-01T00:30:00+00:00" } });
  assert.deepEqual(exportedCredentials(printed, source, NOW), { keys: { accessKeyId: "ASIAEXP", secretAccessKey: "secret", sessionToken: "token" }, expiresAt: NOW + 30 * 60_000 });
  assert.throws(() => exportedCredentials(`{"AccessKeyId": "AK", "SecretAccessKey": "SK"}`, source, NOW), /^AwsCredentialsError: awsCredentialExport \(get-keys\) printed no Credentials object: it must print \{"Credentials": \{"AccessKeyId", "SecretAccessKey", "SessionToken"\}\}$/);
  assert.throws(() => exportedCredentials(`{"Credentials": {"AccessKeyId": "AK"}}`, source, NOW), /^AwsCredentialsError: awsCredentialExport \(get-keys\) printed no Credentials\.SecretAccessKey$/);
});

test("keys are kept until a minute before they expire, keys without an end until they are forgotten", async (t) => {
  t.after(forgetKeptCredentials);
  let now = NOW;
  let runs = 0;
  const expiring = async () => ({ keys: { accessKeyId: `AK${++runs}`, secretAccessKey: "SK" }, expiresAt: now + 10 * 60_000 });
  const clock = () => now;
  assert.equal((await keptCredentials("expiring", clock, expiring)).accessKeyId, "AK1");
  now += 9 * 60_000 - 1;
  assert.equal((await keptCredentials("expiring", clock, expiring)).accessKeyId, "AK1");
  now += 1;
  assert.equal((await keptCredentials("expiring", clock, expiring)).accessKeyId, "AK2");

  // Two requests at once wait on one run of the command.
  const [a, b] = await Promise.all([keptCredentials("lasting", clock, async () => ({ keys: { accessKeyId: `AK${++runs}`, secretAccessKey: "SK" } })), keptCredentials("lasting", clock, async () => ({ keys: { accessKeyId: `AK${++runs}`, secretAccessKey: "SK" } }))]);
  assert.deepEqual([a.accessKeyId, b.accessKeyId], ["AK3", "AK3"]);
  now += 365 * 24 * 3600_000;
  assert.equal((await keptCredentials("lasting", clock, async () => ({ keys: { accessKeyId: "never", secretAccessKey: "SK" } }))).accessKeyId, "AK3");
  forgetKeptCredentials();
  assert.equal((await keptCredentials("lasting", clock, async () => ({ keys: { accessKeyId: "AK4", secretAccessKey: "SK" } }))).accessKeyId, "AK4");

  // A failure is not kept: the next request runs the command again.
  await assert.rejects(keptCredentials("failing", clock, async () => Promise.reject(new Error("no"))), /no/);
  assert.equal((await keptCredentials("failing", clock, async () => ({ keys: { accessKeyId: "AK5", secretAccessKey: "SK" } }))).accessKeyId, "AK5");
});
