// Claude Code's environment variables and settings, as `harness run` takes them from the
// environment and from a settings file's `env`; checked on what the model is sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** A home directory whose ~/.claude/settings.json holds `settings`. */
function homeWith(t: { after(fn: () => unknown): void }, settings: Record<string, unknown>): string {
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings));
  return home;
}

test("CLAUDE_CODE_MAX_OUTPUT_TOKENS and MAX_THINKING_TOKENS set max_tokens and the thinking budget, from the environment or the settings' env", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const dir = tempDir(t);
  const model = ["--model", "claude-sonnet-4-5"];
  const fromEnv = await harness(["run", "--cwd", dir, ...model, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, CLAUDE_CODE_MAX_OUTPUT_TOKENS: "4000", MAX_THINKING_TOKENS: "2048" }).result;
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.equal(fake.requests[0].body.max_tokens, 4000);
  assert.deepEqual(fake.requests[0].body.thinking, { type: "enabled", budget_tokens: 2048 });

  const home = homeWith(t, { env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "5000", MAX_THINKING_TOKENS: "3000" } });
  const fromSettings = await harness(["run", "--cwd", dir, ...model, "hi"], { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(fromSettings.code, 0, fromSettings.stderr);
  assert.equal(fake.requests[1].body.max_tokens, 5000);
  assert.deepEqual(fake.requests[1].body.thinking, { type: "enabled", budget_tokens: 3000 });

  const off = await harness(["run", "--cwd", dir, ...model, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, MAX_THINKING_TOKENS: "0" }).result;
  assert.equal(off.code, 0, off.stderr);
  assert.equal(fake.requests[2].body.max_tokens, 32000);
  assert.equal(fake.requests[2].body.thinking, undefined);
});

test("\"ultrathink\" in the prompt, or the settings' alwaysThinkingEnabled, turn thinking on with Claude Code's budget; MAX_THINKING_TOKENS still wins", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }] }));
  const dir = tempDir(t);
  const model = ["--model", "claude-sonnet-4-5"];
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const plain = await harness(["run", "--cwd", dir, ...model, "think about the cache"], env).result;
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(fake.requests[0].body.thinking, undefined, "only ultrathink asks");

  const asked = await harness(["run", "--cwd", dir, ...model, "UltraThink: why is the cache slow?"], env).result;
  assert.equal(asked.code, 0, asked.stderr);
  assert.deepEqual(fake.requests[1].body.thinking, { type: "enabled", budget_tokens: 31999 });

  const always = homeWith(t, { alwaysThinkingEnabled: true });
  const fromSettings = await harness(["run", "--cwd", dir, ...model, "hi"], { ...env, HOME: always }).result;
  assert.equal(fromSettings.code, 0, fromSettings.stderr);
  assert.deepEqual(fake.requests[2].body.thinking, { type: "enabled", budget_tokens: 31999 });

  const capped = await harness(["run", "--cwd", dir, ...model, "ultrathink"], { ...env, MAX_THINKING_TOKENS: "2048" }).result;
  assert.equal(capped.code, 0, capped.stderr);
  assert.deepEqual(fake.requests[3].body.thinking, { type: "enabled", budget_tokens: 2048 });
});

test("a CLAUDE_CODE_MAX_OUTPUT_TOKENS or MAX_THINKING_TOKENS that is no whole number is refused at start, naming it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const dir = tempDir(t);
  const { code, stderr } = await harness(["run", "--cwd", dir, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, CLAUDE_CODE_MAX_OUTPUT_TOKENS: "lots", MAX_THINKING_TOKENS: "-1" }).result;
  assert.equal(code, 1);
  assert.equal(stderr, 'harness: CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a whole number of tokens, got "lots"; MAX_THINKING_TOKENS must be a whole number of tokens, got "-1"\n');
  assert.equal(fake.requests.length, 0);
});

test("ANTHROPIC_CUSTOM_HEADERS, from the environment or the settings' env, go with every request; one that is no header is refused at start", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "never" }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const fromEnv = await harness(["run", "--cwd", dir, "hi"], { ...env, ANTHROPIC_CUSTOM_HEADERS: "X-Gateway-Team: infra\nx-trace:  abc 123 \n" }).result;
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.equal(fake.requests[0].headers["x-gateway-team"], "infra");
  assert.equal(fake.requests[0].headers["x-trace"], "abc 123");
  assert.equal(fake.requests[0].headers["x-api-key"], "k");

  const home = homeWith(t, { env: { ANTHROPIC_CUSTOM_HEADERS: "X-From-Settings: yes" } });
  const fromSettings = await harness(["run", "--cwd", dir, "hi"], { ...env, HOME: home }).result;
  assert.equal(fromSettings.code, 0, fromSettings.stderr);
  assert.equal(fake.requests[1].headers["x-from-settings"], "yes");

  const bad = await harness(["run", "--cwd", dir, "hi"], { ...env, ANTHROPIC_CUSTOM_HEADERS: "X-Team infra" }).result;
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'harness: ANTHROPIC_CUSTOM_HEADERS must hold one "Name: Value" header to a line, got "X-Team infra"\n');
  assert.equal(fake.requests.length, 2);
});

test("the model: --model, then ANTHROPIC_MODEL (the environment's or a settings file's env), then the settings' model, as Claude Code ranks them", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const settingsOnly = homeWith(t, { model: "opus" });
  const withEnv = homeWith(t, { model: "opus", env: { ANTHROPIC_MODEL: "claude-from-settings-env" } });
  for (const [home, extra, args] of [
    [settingsOnly, {}, []],
    [settingsOnly, { ANTHROPIC_MODEL: "haiku" }, []],
    [withEnv, {}, []],
    [settingsOnly, { ANTHROPIC_MODEL: "haiku" }, ["--model", "claude-from-flag"]],
  ] as const) {
    const run = await harness(["run", "--cwd", dir, ...args, "hi"], { ...env, ...extra, HOME: home }).result;
    assert.equal(run.code, 0, run.stderr);
  }
  assert.deepEqual(fake.requests.map((r) => r.body.model), ["claude-opus-4-6", "claude-haiku-4-5", "claude-from-settings-env", "claude-from-flag"]);
});

test("a Bash or MCP time limit, or MAX_MCP_OUTPUT_TOKENS, that is no whole number is refused at start, naming it, rather than silently left at its default", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const dir = tempDir(t);
  const { code, stderr } = await harness(["run", "--cwd", dir, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, BASH_DEFAULT_TIMEOUT_MS: "2min", MCP_TIMEOUT: "0", MAX_MCP_OUTPUT_TOKENS: "lots" }).result;
  assert.equal(code, 1);
  assert.equal(stderr, 'harness: BASH_DEFAULT_TIMEOUT_MS must be a whole number of milliseconds, got "2min"; MCP_TIMEOUT must be a whole number of milliseconds, got "0"; MAX_MCP_OUTPUT_TOKENS must be a whole number of tokens, got "lots"\n');
  assert.equal(fake.requests.length, 0);
});

test("apiKeyHelper of the user's settings makes the key when none is set; a failing one says so; a project's is not used", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const dir = tempDir(t);
  const noKey = { ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", ANTHROPIC_BASE_URL: fake.url };
  const helped = homeWith(t, { apiKeyHelper: "printf 'key-from-helper\\n'" });
  const first = await harness(["run", "--cwd", dir, "hi"], { ...noKey, HOME: helped }).result;
  assert.equal(first.code, 0, first.stderr);
  assert.equal(fake.requests[0].headers["x-api-key"], "key-from-helper");
  const named = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { ...noKey, HOME: helped }).result;
  assert.equal(named.code, 0, named.stderr);
  assert.equal(fake.requests[1].headers["x-api-key"], "key-from-helper", "with a model named up front too");

  const set = await harness(["run", "--cwd", dir, "hi"], { ...noKey, ANTHROPIC_API_KEY: "key-from-env", HOME: helped }).result;
  assert.equal(set.code, 0, set.stderr);
  assert.equal(fake.requests[2].headers["x-api-key"], "key-from-env", "a key that is set wins");

  const failing = homeWith(t, { apiKeyHelper: "echo vault is sealed >&2; exit 3" });
  const failed = await harness(["run", "--cwd", dir, "hi"], { ...noKey, HOME: failing }).result;
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /apiKeyHelper \(echo vault is sealed >&2; exit 3\) failed with exit code 3: vault is sealed; set ANTHROPIC_API_KEY or mend the helper/);

  const project = tempDir(t);
  mkdirSync(join(project, ".claude"));
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ apiKeyHelper: "echo planted-key" }));
  const planted = await harness(["run", "--cwd", project, "hi"], { ...noKey, HOME: tempDir(t) }).result;
  assert.equal(planted.code, 1);
  assert.match(planted.stderr, /a project's settings cannot say how the API key is made/);
  assert.match(planted.stderr, /ANTHROPIC_API_KEY is not set/);
  assert.equal(fake.requests.length, 3, "no request went out with the planted key");
});

test("a BASH_MAX_OUTPUT_LENGTH or CLAUDE_CODE_API_KEY_HELPER_TTL_MS that is no whole number is refused at start, naming it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const dir = tempDir(t);
  const { code, stderr } = await harness(["run", "--cwd", dir, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, BASH_MAX_OUTPUT_LENGTH: "lots", CLAUDE_CODE_API_KEY_HELPER_TTL_MS: "5min" }).result;
  assert.equal(code, 1);
  assert.match(stderr, /BASH_MAX_OUTPUT_LENGTH must be a whole number of characters, got "lots"/);
  assert.match(stderr, /CLAUDE_CODE_API_KEY_HELPER_TTL_MS must be a whole number of milliseconds, got "5min"/);
  assert.equal(fake.requests.length, 0);
});

test("an alwaysThinkingEnabled that is no true or false is named, and thinking stays off", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }] }));
  const dir = tempDir(t);
  const home = homeWith(t, { alwaysThinkingEnabled: "yes" });
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /settings\.json.*alwaysThinkingEnabled/);
  assert.equal(fake.requests[0].body.thinking, undefined);
});
