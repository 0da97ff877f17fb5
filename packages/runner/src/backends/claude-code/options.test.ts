import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeEnv, claudePermissionMode, findClaudeCodeExecutable, launchOptions, type LaunchInput } from "./options.ts";
import { NO_CLAUDE_CODE } from "./test-support.ts";

test("the environment holds only what Claude Code needs, nothing else of the runner's", () => {
  const runnerEnv = { PATH: "/bin:/usr/bin", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", ANTHROPIC_API_KEY: "runner-key", AWS_SECRET_ACCESS_KEY: "s", HOME: "/root" };
  assert.deepEqual(claudeCodeEnv({ apiKey: "query-key", stateDir: "/state", runnerEnv }), {
    PATH: "/bin:/usr/bin",
    HOME: "/state/claude-home",
    TMPDIR: "/state/claude-tmp",
    CLAUDE_CONFIG_DIR: "/state/claude",
    ANTHROPIC_API_KEY: "query-key",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  });
  const bare = claudeCodeEnv({ stateDir: "/state", runnerEnv: {}, extra: { CLAUDE_CODE_MAX_RETRIES: "2" } });
  assert.equal(bare.ANTHROPIC_API_KEY, undefined);
  assert.equal(bare.ANTHROPIC_BASE_URL, undefined);
  assert.equal(bare.CLAUDE_CODE_MAX_RETRIES, "2");
});

test("Claude Code gets the runner's proxies, the CA file it trusts and its client certificate, in either case, and no blank one", () => {
  const network = {
    HTTPS_PROXY: "http://proxy.corp:3128",
    http_proxy: "http://me:secret@proxy.corp:3128",
    ALL_PROXY: "http://all.corp:3128",
    no_proxy: "localhost,.corp",
    NO_PROXY: "",
    NODE_EXTRA_CA_CERTS: "/etc/corp/ca.pem",
    CLAUDE_CODE_CLIENT_CERT: "/etc/corp/client.pem",
    CLAUDE_CODE_CLIENT_KEY: "/etc/corp/client-key.pem",
    CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: "key secret",
  };
  const env = claudeCodeEnv({ stateDir: "/state", runnerEnv: { PATH: "/bin", AWS_SECRET_ACCESS_KEY: "s", ...network } });
  const { NO_PROXY: _blank, ...given } = network;
  assert.deepEqual(
    Object.fromEntries(Object.entries(env).filter(([name]) => name in network)),
    given,
  );
  assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
  const pinned = launchOptions({ query: { prompt: "p" }, cwd: "/w", executable: "/bin/claude", settingSources: ["project"], canUseTool: async () => ({ behavior: "deny", message: "no" }), abortController: new AbortController(), stderr: () => {}, env }).settings as { env: Record<string, string> };
  assert.equal(pinned.env.HTTPS_PROXY, "http://proxy.corp:3128", "a workspace's settings cannot send the requests elsewhere");
  assert.equal(pinned.env.no_proxy, "localhost,.corp", "nor around the proxy");
  assert.equal(pinned.env.NO_PROXY, "");
});

test("with Vertex on, Claude Code gets the Vertex switches and the runner's Google credentials file (its HOME is another)", (t) => {
  const home = mkdtempSync(join(tmpdir(), "harness-gcloud-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, ".config", "gcloud"), { recursive: true });
  writeFileSync(join(home, ".config", "gcloud", "application_default_credentials.json"), "{}");
  const runnerEnv = { PATH: "/bin", HOME: home, CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p", CLOUD_ML_REGION: "global", VERTEX_REGION_CLAUDE_4_5_SONNET: "europe-west1", GOOGLE_CLOUD_SECRET: "s" };
  const env = claudeCodeEnv({ stateDir: "/state", runnerEnv });
  assert.equal(env.CLAUDE_CODE_USE_VERTEX, "1");
  assert.equal(env.ANTHROPIC_VERTEX_PROJECT_ID, "p");
  assert.equal(env.CLOUD_ML_REGION, "global");
  assert.equal(env.VERTEX_REGION_CLAUDE_4_5_SONNET, "europe-west1");
  assert.equal(env.GOOGLE_APPLICATION_CREDENTIALS, join(home, ".config", "gcloud", "application_default_credentials.json"));
  assert.equal(env.GOOGLE_CLOUD_SECRET, undefined);
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { ...runnerEnv, GOOGLE_APPLICATION_CREDENTIALS: "/keys/sa.json" } }).GOOGLE_APPLICATION_CREDENTIALS, "/keys/sa.json");
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { HOME: "/home/me" } }).GOOGLE_APPLICATION_CREDENTIALS, undefined);
});

test("with Vertex on and no credentials file, Claude Code is left to the metadata server, at the runner's host when it names one", () => {
  const runnerEnv = { PATH: "/bin", HOME: "/nowhere-at-all", CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p", GCE_METADATA_HOST: "127.0.0.1:8080", GCE_METADATA_IP: "127.0.0.2" };
  const env = claudeCodeEnv({ stateDir: "/state", runnerEnv });
  // google-auth-library stops at a GOOGLE_APPLICATION_CREDENTIALS that names no file.
  assert.equal(env.GOOGLE_APPLICATION_CREDENTIALS, undefined);
  assert.equal(env.GCE_METADATA_HOST, "127.0.0.1:8080");
  assert.equal(env.GCE_METADATA_IP, "127.0.0.2");
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { ...runnerEnv, GOOGLE_APPLICATION_CREDENTIALS: "/keys/gone.json" } }).GOOGLE_APPLICATION_CREDENTIALS, "/keys/gone.json", "a file named is named on");
});

test("with Bedrock on, Claude Code gets the Bedrock switches, the AWS credentials and the runner's AWS files (its HOME is another)", () => {
  const runnerEnv = { PATH: "/bin", HOME: "/home/me", CLAUDE_CODE_USE_BEDROCK: "1", AWS_DEFAULT_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AK", AWS_SECRET_ACCESS_KEY: "SK", AWS_SESSION_TOKEN: "ST", AWS_PROFILE: "work", ANTHROPIC_BEDROCK_BASE_URL: "https://gw", CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1", ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION: "us-west-2", AWS_SOMETHING_ELSE: "x" };
  const env = claudeCodeEnv({ stateDir: "/state", runnerEnv });
  for (const name of ["CLAUDE_CODE_USE_BEDROCK", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "ANTHROPIC_BEDROCK_BASE_URL", "CLAUDE_CODE_SKIP_BEDROCK_AUTH", "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION"] as const) {
    assert.equal(env[name], runnerEnv[name], name);
  }
  // Claude Code reads AWS_REGION only.
  assert.equal(env.AWS_REGION, "eu-west-1");
  assert.equal(env.AWS_SHARED_CREDENTIALS_FILE, "/home/me/.aws/credentials");
  assert.equal(env.AWS_CONFIG_FILE, "/home/me/.aws/config");
  assert.equal(env.AWS_SOMETHING_ELSE, undefined);
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { ...runnerEnv, AWS_BEARER_TOKEN_BEDROCK: "ABSK", AWS_REGION: "us-east-1" } }).AWS_BEARER_TOKEN_BEDROCK, "ABSK");
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { ...runnerEnv, AWS_REGION: "us-east-1" } }).AWS_REGION, "us-east-1");
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { HOME: "/home/me", AWS_ACCESS_KEY_ID: "AK" } }).AWS_ACCESS_KEY_ID, undefined);
});

test("where the model is reached is laid over every settings file as command-line settings: the given endpoint, else Anthropic's, and no proxy", () => {
  const base = { query: { prompt: "p" }, cwd: "/w", executable: "/bin/claude", settingSources: ["project" as const], canUseTool: async () => ({ behavior: "deny" as const, message: "no" }), abortController: new AbortController(), stderr: () => {} };
  const given = launchOptions({ ...base, env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:9", HTTPS_PROXY: "http://proxy:3128" } }).settings;
  assert.deepEqual(given, { env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:9", HTTPS_PROXY: "http://proxy:3128", https_proxy: "", HTTP_PROXY: "", http_proxy: "", ALL_PROXY: "", all_proxy: "", NO_PROXY: "", no_proxy: "" } });
  const none = launchOptions({ ...base, env: {} }).settings as { env: Record<string, string> };
  assert.equal(none.env.ANTHROPIC_BASE_URL, "https://api.anthropic.com");
  assert.equal(none.env.HTTP_PROXY, "");
});

test("bypassPermissions is carried out by the harness on top of acceptEdits; other modes pass through", () => {
  assert.equal(claudePermissionMode("bypassPermissions"), "acceptEdits");
  assert.equal(claudePermissionMode("plan"), "plan");
  assert.equal(claudePermissionMode("default"), "default");
  const input: LaunchInput = {
    query: { prompt: "p", permissionMode: "bypassPermissions", resumeSessionId: "s-1", model: "m", maxTurns: 3 },
    resume: { sessionId: "s-1" },
    cwd: "/w",
    executable: "/bin/claude",
    env: {},
    settingSources: ["project"],
    canUseTool: async () => ({ behavior: "deny", message: "no" }),
    abortController: new AbortController(),
    stderr: () => {},
  };
  const options = launchOptions(input);
  assert.equal(options.permissionMode, "acceptEdits");
  assert.equal(options.allowDangerouslySkipPermissions, undefined);
  assert.deepEqual([options.resume, options.model, options.maxTurns, options.cwd], ["s-1", "m", 3, "/w"]);
  assert.deepEqual(options.systemPrompt, { type: "preset", preset: "claude_code" });
  assert.equal(options.forkSession, undefined);
  const fork = launchOptions({ ...input, resume: { sessionId: "s-0", at: "uuid-7" } });
  assert.deepEqual([fork.resume, fork.resumeSessionAt, fork.forkSession], ["s-0", "uuid-7", true]);
});

test("the binary of the SDK's platform package is found", { skip: NO_CLAUDE_CODE }, () => {
  const path = findClaudeCodeExecutable();
  assert.ok(path && existsSync(path));
  assert.match(path, /claude-agent-sdk-[a-z0-9]+-[a-z0-9]+(-musl)?\/claude(\.exe)?$/);
});

test("the cloud credentials a query brings reach Claude Code over the runner's, which holds none under a server", () => {
  const bedrock = { PATH: "/bin", HOME: "/home/me", CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1" };
  const keyed = claudeCodeEnv({ stateDir: "/state", runnerEnv: bedrock, cloud: { awsAccessKeyId: "AK", awsSecretAccessKey: "SK", awsSessionToken: "ST" } });
  assert.deepEqual([keyed.AWS_ACCESS_KEY_ID, keyed.AWS_SECRET_ACCESS_KEY, keyed.AWS_SESSION_TOKEN], ["AK", "SK", "ST"]);
  // The runner's session token belongs to the runner's keys, not to the query's.
  const over = claudeCodeEnv({ stateDir: "/state", runnerEnv: { ...bedrock, AWS_ACCESS_KEY_ID: "old", AWS_SECRET_ACCESS_KEY: "old", AWS_SESSION_TOKEN: "old" }, cloud: { awsAccessKeyId: "AK", awsSecretAccessKey: "SK" } });
  assert.deepEqual([over.AWS_ACCESS_KEY_ID, over.AWS_SECRET_ACCESS_KEY, over.AWS_SESSION_TOKEN], ["AK", "SK", undefined]);
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: bedrock, cloud: { awsBearerTokenBedrock: "ABSK" } }).AWS_BEARER_TOKEN_BEDROCK, "ABSK");
  // Off Bedrock, none of them is passed on.
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: { HOME: "/home/me" }, cloud: { awsBearerTokenBedrock: "ABSK" } }).AWS_BEARER_TOKEN_BEDROCK, undefined);
  const vertex = { PATH: "/bin", HOME: "/home/me", CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p" };
  assert.equal(claudeCodeEnv({ stateDir: "/state", runnerEnv: vertex, cloud: { googleCredentialsFile: "/srv/keys/sa.json" } }).GOOGLE_APPLICATION_CREDENTIALS, "/srv/keys/sa.json");
});
