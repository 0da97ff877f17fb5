// Which model a run asks for: Claude Code's aliases and variables mean what they mean there.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunAgentOptions } from "../../types.ts";
import { chooseModel } from "./model.ts";

const run = (env: Record<string, string>, extra: Partial<RunAgentOptions> = {}) => ({ prompt: "p", signal: new AbortController().signal, emit: () => {}, cwd: "/", env, ...extra }) as RunAgentOptions;

test("Claude Code's model aliases and variables are understood", () => {
  const env = {};
  assert.equal(chooseModel(run(env), {}), "claude-sonnet-4-6");
  assert.equal(chooseModel(run({ ANTHROPIC_MODEL: "claude-opus-4-1" }), {}), "claude-opus-4-1");
  assert.equal(chooseModel(run({ ANTHROPIC_MODEL: "claude-opus-4-1", HARNESS_MODEL: "claude-haiku-4-5" }), {}), "claude-haiku-4-5");
  assert.equal(chooseModel(run(env), { model: "opus" }), "claude-opus-4-6");
  assert.equal(chooseModel(run({ ANTHROPIC_DEFAULT_OPUS_MODEL: "my-opus" }), { model: "opus" }), "my-opus");
  assert.equal(chooseModel(run(env), { model: "sonnet[1m]" }), "claude-sonnet-4-6");
  assert.equal(chooseModel(run({ ANTHROPIC_MODEL: "haiku" }), { model: "default" }), "claude-haiku-4-5");
  assert.equal(chooseModel(run(env), { model: "opusplan" }), "claude-sonnet-4-6");
  assert.equal(chooseModel(run(env, { permissionMode: "plan" }), { model: "opusplan" }), "claude-opus-4-6");
  assert.equal(chooseModel(run(env), { model: "opusplan", permissions: { defaultMode: "plan" } }), "claude-opus-4-6");
  assert.equal(chooseModel(run(env), { model: "claude-3-7-sonnet-latest" }), "claude-3-7-sonnet-latest");
  // As in Claude Code, ANTHROPIC_MODEL (or HARNESS_MODEL) outranks the settings' model.
  assert.equal(chooseModel(run({ ANTHROPIC_MODEL: "haiku" }), { model: "opus" }), "claude-haiku-4-5");
  assert.equal(chooseModel(run({ HARNESS_MODEL: "claude-x" }), { model: "opus" }), "claude-x");
  assert.equal(chooseModel(run({ ANTHROPIC_MODEL: "haiku" }, { model: "sonnet" }), { model: "opus" }), "claude-sonnet-4-6");
  // A slash command's model, then the run's, then the settings'.
  assert.equal(chooseModel(run(env, { model: "haiku" }), { model: "opus" }), "claude-haiku-4-5");
  assert.equal(chooseModel(run(env, { model: "haiku" }), { model: "opus" }, "sonnet"), "claude-sonnet-4-6");
});
