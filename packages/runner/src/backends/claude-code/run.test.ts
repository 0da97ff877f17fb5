import { test } from "node:test";
import assert from "node:assert/strict";
import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import { MISSING_ANTHROPIC_KEY } from "@harness/llm/model-prefix";
import type { RunnerQuery } from "@harness/protocol";
import type { BackendContext } from "../../backend.ts";
import { applyConfiguration, modelFailureOf, NOT_INSTALLED_MESSAGE, resultFailure, runOptionsRefused, runClaudeCode } from "./run.ts";

const result = (fields: Record<string, unknown>) => ({ type: "result", num_turns: 3, errors: [], ...fields }) as unknown as SDKResultMessage;

test("result messages that end a run badly say what happened", () => {
  assert.equal(resultFailure(result({ subtype: "success", is_error: false, result: "fine" })), undefined);
  assert.equal(resultFailure(result({ subtype: "success", is_error: true, result: "API Error: 500 boom" })), "API Error: 500 boom");
  assert.equal(resultFailure(result({ subtype: "error_max_turns" })), "Claude Code reached the maximum number of turns for the run (3)");
  assert.equal(resultFailure(result({ subtype: "error_max_budget_usd" })), "Claude Code reached the run's budget");
  assert.equal(
    resultFailure(result({ subtype: "error_during_execution", errors: ["[ede_diagnostic] result_type=user", "No conversation found with session ID: x"] })),
    "Claude Code failed: No conversation found with session ID: x",
  );
  assert.equal(resultFailure(result({ subtype: "error_during_execution", errors: [] })), "Claude Code failed while running");
});

test("a result that ends a run on a failed model request is the run's model failure, with the API's status when Claude Code gave it", () => {
  assert.deepEqual(modelFailureOf(result({ subtype: "success", is_error: true, result: "API Error: 400 bad", api_error_status: 400 }), "API Error: 400 bad"), { status: 400, error: "API Error: 400 bad" });
  assert.deepEqual(modelFailureOf(result({ subtype: "success", is_error: true, result: "API Error: boom", api_error_status: null }), "API Error: boom"), { error: "API Error: boom" });
  assert.equal(modelFailureOf(result({ subtype: "success", is_error: false, result: "fine" }), undefined), undefined);
  assert.equal(modelFailureOf(result({ subtype: "error_max_turns" }), "Claude Code reached the maximum number of turns for the run (3)"), undefined);
});

test("configuration goes to the running Claude Code; what it cannot take now, or refuses, is said", async () => {
  const calls: string[] = [];
  const notices: string[] = [];
  const target = {
    setPermissionMode: async (m: string) => void calls.push(`mode ${m}`),
    setModel: async (m: string) => {
      calls.push(`model ${m}`);
      throw new Error("unknown model");
    },
    setEffort: async (e: string) => void calls.push(`effort ${e}`),
    notice: (level: string, message: string) => void notices.push(`${level}: ${message}`),
  };
  await applyConfiguration({ permissionMode: "plan", model: "nope", effort: "high", maxTurns: 4, systemPrompt: "x" }, target);
  assert.deepEqual(calls, ["mode plan", "model nope", "effort high"]);
  assert.deepEqual(notices, [
    "warning: Claude Code did not take the new model: unknown model",
    "info: Claude Code takes maxTurns and systemPrompt when it starts: the change applies from the next run.",
  ]);
  notices.length = 0;
  await applyConfiguration({ model: "ok" }, { ...target, setModel: async () => {} });
  assert.deepEqual(notices, []);
});

test("a permission mode Claude Code refuses is said, and reported as refused so the session can say the mode the run stays in", async () => {
  const notices: string[] = [];
  const refused: string[] = [];
  const target = {
    setPermissionMode: async () => {
      throw new Error("Cannot set permission mode to bypassPermissions");
    },
    setModel: async () => {},
    setEffort: async () => {},
    notice: (level: string, message: string) => void notices.push(`${level}: ${message}`),
    modeRefused: (mode: string) => void refused.push(mode),
  };
  await applyConfiguration({ permissionMode: "bypassPermissions", model: "m" }, target);
  assert.deepEqual(refused, ["bypassPermissions"]);
  assert.deepEqual(notices, ["warning: Claude Code did not take the new permission mode: Cannot set permission mode to bypassPermissions"]);
  refused.length = 0;
  await applyConfiguration({ permissionMode: "acceptEdits" }, { ...target, setPermissionMode: async () => {} });
  assert.deepEqual(refused, []);
});

test("with Vertex AI or Bedrock on, a run asks for no Anthropic key", async () => {
  const run = (runnerEnv: Record<string, string>) =>
    runClaudeCode({ prompt: "p" } as RunnerQuery, { signal: new AbortController().signal, stateDir: "/nonexistent" } as unknown as BackendContext, { runnerEnv, executable: "", settingSources: [], interruptGraceMs: 0 });
  assert.deepEqual(await run({}), { ok: false, message: MISSING_ANTHROPIC_KEY });
  // Past the key, to the next check: where Claude Code is.
  assert.deepEqual(await run({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-east-1" }), { ok: false, message: NOT_INSTALLED_MESSAGE });
  assert.deepEqual(await run({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_PROJECT_ID: "p" }), { ok: false, message: NOT_INSTALLED_MESSAGE });
});

test("a query with run options (the builtin backend's) is refused, saying which backend takes them", async () => {
  const query = { prompt: "p", runOptions: { appendSystemPrompt: "x", additionalDirectories: ["/d"] } } as RunnerQuery;
  const outcome = await runClaudeCode(query, { signal: new AbortController().signal, stateDir: "/nonexistent" } as unknown as BackendContext, { runnerEnv: { ANTHROPIC_API_KEY: "k" }, executable: "/bin/true", settingSources: [], interruptGraceMs: 0 });
  assert.deepEqual(outcome, { ok: false, message: runOptionsRefused("appendSystemPrompt, additionalDirectories") });
});
