// Turning telemetry on for a process: from the environment or the user's and managed settings'
// env (never a repository's), and Claude Code's own exporter kept off while Harness's is on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchOptions } from "../backends/claude-code/options.ts";
import { claudeCodeTelemetryEnv, startProcessTelemetry, stopTelemetry } from "./active.ts";
import { telemetryEnv } from "./settings-env.ts";

const home = mkdtempSync(join(tmpdir(), "harness-telemetry-home-"));
process.on("exit", () => rmSync(home, { recursive: true, force: true }));
const sinks = { debug: () => {}, console: () => {}, note: () => {} };
const settingsEnvOf = (env: Record<string, string>) =>
  (launchOptions({ query: { prompt: "p" }, cwd: "/w", executable: "/bin/claude", settingSources: ["project"], canUseTool: async () => ({ behavior: "deny", message: "no" }), abortController: new AbortController(), stderr: () => {}, env }).settings as { env: Record<string, string> }).env;

test("the user's and the managed settings' env configure telemetry over the process's", () => {
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: { CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_METRICS_EXPORTER: "console", OTEL_LOG_USER_PROMPTS: "1" } }));
  const managed = join(home, "managed-settings.json");
  writeFileSync(managed, JSON.stringify({ env: { OTEL_LOG_USER_PROMPTS: "0", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector.corp:4318" } }));
  const env = telemetryEnv({ HOME: home, OTEL_METRICS_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp" }, managed);
  assert.equal(env.CLAUDE_CODE_ENABLE_TELEMETRY, "1");
  assert.equal(env.OTEL_METRICS_EXPORTER, "console", "the settings' env wins over the process's, as in Claude Code");
  assert.equal(env.OTEL_LOGS_EXPORTER, "otlp");
  assert.equal(env.OTEL_LOG_USER_PROMPTS, "0", "the managed settings win over the user's");
  assert.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, "http://collector.corp:4318");
  rmSync(join(home, ".claude"), { recursive: true });
  assert.equal(telemetryEnv({ HOME: home }, join(home, "none.json")).CLAUDE_CODE_ENABLE_TELEMETRY, undefined);
});

test("Claude Code's own exporter is turned off while Harness's is on, unless HARNESS_CLAUDE_CODE_TELEMETRY=1 asks for both", async () => {
  assert.deepEqual(claudeCodeTelemetryEnv({}), {});
  assert.equal(settingsEnvOf({}).CLAUDE_CODE_ENABLE_TELEMETRY, undefined, "with Harness's off, Claude Code does as its settings say");
  await startProcessTelemetry({ HOME: home, CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }, sinks);
  try {
    assert.equal(settingsEnvOf({}).CLAUDE_CODE_ENABLE_TELEMETRY, "0");
    assert.deepEqual(claudeCodeTelemetryEnv({ HARNESS_CLAUDE_CODE_TELEMETRY: "1" }), {});
  } finally {
    await stopTelemetry(100);
  }
  assert.deepEqual(claudeCodeTelemetryEnv({}), {});
});
