// Server options from the environment: sessions per runner process, the web pages let in without a token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SESSIONS_PER_RUNNER, resolveConfig, startWarnings } from "./config.ts";
import { createRunnerPool } from "./runners/pool.ts";

test("sessions per runner process: default, from the environment, from the options", () => {
  assert.equal(resolveConfig({ env: {} }).runnerSessionsPerProcess, DEFAULT_SESSIONS_PER_RUNNER);
  assert.equal(resolveConfig({ env: { HARNESS_RUNNER_SESSIONS_PER_PROCESS: "1" } }).runnerSessionsPerProcess, 1);
  assert.equal(resolveConfig({ env: { HARNESS_RUNNER_SESSIONS_PER_PROCESS: "7" }, runnerSessionsPerProcess: 3 }).runnerSessionsPerProcess, 3);
});

test("a bad number of sessions per runner process is refused with a message naming it", () => {
  for (const bad of ["0", "-2", "1.5", "many", "10001"]) {
    assert.throws(() => resolveConfig({ env: { HARNESS_RUNNER_SESSIONS_PER_PROCESS: bad } }), { message: `HARNESS_RUNNER_SESSIONS_PER_PROCESS must be a whole number from 1 to 10000, got ${JSON.stringify(bad)}` });
  }
  assert.throws(() => createRunnerPool({ env: {}, capacity: 0, dir: "/tmp", idleExitMs: 1, log: () => {} }), /runner capacity must be a positive integer, got 0/);
});

test("allowed origins come from the options or HARNESS_ALLOWED_ORIGINS, and must be origins", () => {
  assert.deepEqual([...resolveConfig({ env: {} }).allowedOrigins], []);
  assert.deepEqual([...resolveConfig({ env: { HARNESS_ALLOWED_ORIGINS: "https://a.example, http://b.example:8080" } }).allowedOrigins], ["https://a.example", "http://b.example:8080"]);
  assert.deepEqual([...resolveConfig({ env: { HARNESS_ALLOWED_ORIGINS: "https://a.example" }, allowedOrigins: ["https://c.example"] }).allowedOrigins], ["https://c.example"]);
  for (const bad of ["https://a.example/", "a.example", "ftp://a.example", "https://a.example/ui"]) {
    assert.throws(() => resolveConfig({ env: { HARNESS_ALLOWED_ORIGINS: bad } }), { message: `HARNESS_ALLOWED_ORIGINS: ${JSON.stringify(bad)} is not an origin such as https://ui.example.com (a scheme, a host and a port if any, no path or trailing slash)` });
  }
});

test("numbers from the environment are digits in range, named by their variable; options by their name", () => {
  for (const [name, bad, range] of [
    ["HARNESS_RUNNER_IDLE_MS", "10", "1000 to 2147483647 (milliseconds)"],
    ["HARNESS_RUNNER_IDLE_MS", "1e3", "1000 to 2147483647 (milliseconds)"],
    ["HARNESS_RUNNER_IDLE_MS", "0x10000", "1000 to 2147483647 (milliseconds)"],
    ["HARNESS_RUNNER_IDLE_MS", " 5000", "1000 to 2147483647 (milliseconds)"],
    ["HARNESS_RUNNER_STALL_MS", "50", "100 to 2147483647 (milliseconds)"],
    ["HARNESS_RUNNER_STALL_MS", "30s", "100 to 2147483647 (milliseconds)"],
    ["HARNESS_STOP_GRACE_MS", "-1", "0 to 2147483647 (milliseconds)"],
    ["HARNESS_STOP_GRACE_MS", "10s", "0 to 2147483647 (milliseconds)"],
    ["HARNESS_WEBHOOKS_RETRY_BASE_MS", "5", "10 to 600000 (milliseconds)"],
    ["PORT", "70000", "0 to 65535"],
    ["PORT", "-1", "0 to 65535"],
  ] as const) {
    assert.throws(() => resolveConfig({ env: { [name]: bad } }), { message: `${name} must be a whole number from ${range}, got ${JSON.stringify(bad)}` });
  }
  assert.equal(resolveConfig({ env: { HARNESS_RUNNER_IDLE_MS: "1000" } }).runnerIdleMs, 1000);
  assert.equal(resolveConfig({ env: { HARNESS_STOP_GRACE_MS: "0" } }).stopGraceMs, 0);
  assert.equal(resolveConfig({ env: {} }).runnerStallMs, 30_000);
  assert.equal(resolveConfig({ env: { HARNESS_RUNNER_STALL_MS: "5000" } }).runnerStallMs, 5000);
  assert.throws(() => resolveConfig({ env: {}, runnerIdleMs: 5 }), { message: "runnerIdleMs must be a whole number from 1000 to 2147483647 (milliseconds), got 5" });
  assert.throws(() => resolveConfig({ env: {}, heartbeatMs: 1.5 }), { message: "heartbeatMs must be a whole number from 10 to 2147483647 (milliseconds), got 1.5" });
});

test("the run settings in the environment are checked at start, each named", () => {
  assert.throws(() => resolveConfig({ env: { HARNESS_MODEL_RETRIES: "abc", HARNESS_CONTEXT_WINDOW: "big", HARNESS_COMPACT_THRESHOLD: "0", HARNESS_DEFER_TOOLS_AFTER: "-1" } }), {
    message: [
      'HARNESS_MODEL_RETRIES must be a whole number of at least 0, got "abc"',
      'HARNESS_CONTEXT_WINDOW must be a whole number of tokens, got "big"',
      'HARNESS_COMPACT_THRESHOLD must be a fraction (0.75) or a percentage (75) of the context window, got "0"',
      'HARNESS_DEFER_TOOLS_AFTER must be a whole number of tools, got "-1"',
    ].join("; "),
  });
  assert.throws(() => resolveConfig({ env: { HARNESS_STREAM_IDLE_MS: "0" } }), { message: "HARNESS_STREAM_IDLE_MS must be at least 1, got 0" });
  assert.throws(() => resolveConfig({ env: { HARNESS_BACKEND: "bogus" } }), { message: 'HARNESS_BACKEND must be one of builtin, claude-code, got "bogus"' });
  assert.throws(() => resolveConfig({ env: { ANTHROPIC_BASE_URL: "notaurl", OPENAI_BASE_URL: "localhost:8080", OLLAMA_BASE_URL: "ftp://x" } }), {
    message: [
      'ANTHROPIC_BASE_URL must be an http(s) URL such as http://127.0.0.1:8080, got "notaurl"',
      'OPENAI_BASE_URL must be an http(s) URL such as http://127.0.0.1:8080, got "localhost:8080"',
      'OLLAMA_BASE_URL must be an http(s) URL such as http://127.0.0.1:8080, got "ftp://x"',
    ].join("; "),
  });
  const fine = { HARNESS_MODEL_RETRIES: "2", HARNESS_CONTEXT_WINDOW: "50000", HARNESS_COMPACT_THRESHOLD: "75", HARNESS_DEFER_TOOLS_AFTER: "0", ANTHROPIC_BASE_URL: "https://example.test/anthropic" };
  assert.equal(resolveConfig({ env: fine }).env, fine);
});

test("a server others can reach needs a token of 16 printable characters or more; [::1] binds ::1", () => {
  assert.throws(() => resolveConfig({ env: { HARNESS_HOST: "0.0.0.0" } }), /^Error: refusing to listen on 0\.0\.0\.0 without a token/);
  assert.throws(() => resolveConfig({ env: { HARNESS_HOST: "0.0.0.0", HARNESS_TOKEN: "1" } }), {
    message: "refusing to listen on 0.0.0.0 with a token of 1 characters: use at least 16 (e.g. openssl rand -hex 32)",
  });
  assert.throws(() => resolveConfig({ env: { HARNESS_TOKEN: "two words" } }), { message: "HARNESS_TOKEN must be printable ASCII without spaces (it travels in a header and a query string)" });
  assert.equal(resolveConfig({ env: { HARNESS_HOST: "0.0.0.0", HARNESS_TOKEN: "a".repeat(16) } }).host, "0.0.0.0");
  assert.equal(resolveConfig({ env: { HARNESS_TOKEN: "short" } }).token, "short", "on loopback, any token");
  assert.equal(resolveConfig({ env: { HARNESS_HOST: "[::1]" } }).host, "::1");
});

test("run options every run carries: checked in outline, and refused with a backend that does not take them", () => {
  const runOptions = { appendSystemPrompt: "Be brief.", additionalDirectories: ["/srv/docs"] };
  assert.deepEqual(resolveConfig({ env: {}, runOptions }).runOptions, runOptions);
  assert.equal(resolveConfig({ env: {} }).runOptions, undefined);
  assert.throws(() => resolveConfig({ env: {}, runOptions: { additionalDirectories: ["docs"] } }), { message: /^runOptions\.additionalDirectories\.0: must be an absolute path$/ });
  assert.throws(() => resolveConfig({ env: {}, runOptions: { nosuch: 1 } as never }), { message: /^runOptions: .*nosuch/ });
  assert.throws(() => resolveConfig({ env: { HARNESS_BACKEND: "claude-code" }, runOptions }), {
    message: "the claude-code backend (HARNESS_BACKEND) takes no run options (appendSystemPrompt, additionalDirectories): they are the builtin backend's",
  });
});

test("the runners' debug log: off by default, HARNESS_DEBUG a filter or 1 for all, the option over it; a bad filter is refused naming the variable", () => {
  const base = { env: {}, dataDir: "/tmp/x" };
  assert.equal(resolveConfig(base).debug, undefined);
  assert.equal(resolveConfig({ ...base, env: { HARNESS_DEBUG: "0" } }).debug, undefined);
  assert.equal(resolveConfig({ ...base, env: { HARNESS_DEBUG: "1" } }).debug, "");
  assert.equal(resolveConfig({ ...base, env: { HARNESS_DEBUG: "mcp,hooks" } }).debug, "mcp,hooks");
  assert.equal(resolveConfig({ ...base, env: { HARNESS_DEBUG: "mcp" }, debug: "!api" }).debug, "!api");
  assert.throws(() => resolveConfig({ ...base, env: { HARNESS_DEBUG: "mcp,!api" } }), /^Error: HARNESS_DEBUG: the filter "mcp,!api" mixes categories/);
  assert.throws(() => resolveConfig({ ...base, env: { HARNESS_DEBUG: "m c p" } }), /^Error: HARNESS_DEBUG: the filter "m c p": "m c p" is not a category .*\(or 1 for all\)$/);
});

test("a metrics token is warned about only on a server with no other token, where it guards nothing", () => {
  const metrics = "metrics-token-0123456789";
  const warnings = (env: Record<string, string>, options: { userTokens?: Map<string, string> } = {}) => startWarnings(resolveConfig({ env, ...options }));
  assert.match(warnings({ HARNESS_METRICS_TOKEN: metrics }).join("\n"), /^HARNESS_METRICS_TOKEN protects nothing: /);
  assert.deepEqual(warnings({}), []);
  assert.deepEqual(warnings({ HARNESS_METRICS_TOKEN: metrics, HARNESS_TOKEN: "shared-token-0123456789" }), []);
  assert.deepEqual(warnings({ HARNESS_METRICS_TOKEN: metrics }, { userTokens: new Map([["ann-token-0123456789", "ann"]]) }), []);
});

test("the log settings are checked when the server writes its own log, and left alone when it is given one", () => {
  assert.throws(() => resolveConfig({ env: { HARNESS_LOG_FORMAT: "xml" } }), { message: 'HARNESS_LOG_FORMAT must be text or json, got "xml"' });
  assert.throws(() => resolveConfig({ env: { HARNESS_LOG_LEVEL: "loud" } }), { message: 'HARNESS_LOG_LEVEL must be debug, info, warn or error, got "loud"' });
  const lines: string[] = [];
  resolveConfig({ env: { HARNESS_LOG_FORMAT: "xml" }, log: (line) => lines.push(line) }).log("as given");
  assert.deepEqual(lines, ["as given"]);
});

test("webhooks may name private addresses only with HARNESS_WEBHOOKS_ALLOW_PRIVATE=1; another value is refused, named", () => {
  assert.equal(resolveConfig({ env: {} }).webhooksAllowPrivate, false);
  assert.equal(resolveConfig({ env: { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "0" } }).webhooksAllowPrivate, false);
  assert.equal(resolveConfig({ env: { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1" } }).webhooksAllowPrivate, true);
  assert.throws(() => resolveConfig({ env: { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "yes" } }), { message: 'HARNESS_WEBHOOKS_ALLOW_PRIVATE must be 1 or 0, got "yes"' });
  assert.equal(resolveConfig({ env: {} }).webhooksRetryBaseMs, 1000);
});
