// The settings' availableModels, matched as Claude Code matches it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Settings } from "../../settings/types.ts";
import type { RunAgentOptions } from "../../types.ts";
import { modelAllowed, modelRefusal } from "./available-models.ts";
import { pickModel } from "./model.ts";

const env = {};
const allowed = (asked: string, list: string[], e: Record<string, string> = env) => modelAllowed(asked, list, e);

test("a family alias admits every model of its family, and the alias itself", () => {
  assert.equal(allowed("claude-sonnet-4-5-20250929", ["sonnet"]), true);
  assert.equal(allowed("sonnet", ["sonnet"]), true);
  assert.equal(allowed("sonnet[1m]", ["sonnet"]), true);
  assert.equal(allowed("anthropic/claude-sonnet-4-6", ["sonnet"]), true, "the anthropic/ routing prefix names the same model");
  assert.equal(allowed("claude-opus-4-6", ["sonnet", "haiku"]), false);
  assert.equal(allowed("opus", ["SONNET"]), false);
  assert.equal(allowed("openai/sonnet-imitation", ["sonnet"]), false, "a model of another provider is of no Claude family");
});

test("an alias asked for is resolved before it is matched: to the current model, or ANTHROPIC_DEFAULT_<ALIAS>_MODEL", () => {
  assert.equal(allowed("opus", ["claude-opus-4-6"]), true);
  assert.equal(allowed("opus", ["claude-opus-4-5"]), false);
  assert.equal(allowed("opus", ["claude-opus-4-5"], { ANTHROPIC_DEFAULT_OPUS_MODEL: "claude-opus-4-5-20251101" }), true);
  assert.equal(allowed("haiku", ["sonnet"]), false);
});

test("a model id admits itself and its dated versions, at a segment boundary; a shorthand without claude- is that id", () => {
  assert.equal(allowed("claude-opus-4-5-20251101", ["claude-opus-4-5"]), true);
  assert.equal(allowed("claude-opus-4-5", ["claude-opus-4-5"]), true);
  assert.equal(allowed("claude-opus-4-50", ["claude-opus-4-5"]), false);
  assert.equal(allowed("claude-opus-4-5-20251101", ["opus-4-5"]), true);
  assert.equal(allowed("claude-opus-4-6", ["opus-4-5"]), false);
  assert.equal(allowed("claude-opus-4-5", ["claude-opus-4-5-20251101"]), false, "a dated id admits only that version");
  assert.equal(allowed("openai/gpt-4o", ["openai/gpt-4o"]), true);
  assert.equal(allowed("openai/gpt-4o", ["gpt-4o"]), false, "another provider's model is named with its prefix");
  assert.equal(allowed("ollama/llama3", []), false, "an empty list admits no model chosen");
});

const run = (e: Record<string, string>, extra: Partial<RunAgentOptions> = {}) => ({ prompt: "p", signal: new AbortController().signal, emit: () => {}, cwd: "/", env: e, ...extra }) as RunAgentOptions;

test("a model chosen that the list leaves out is refused, naming it, who chose it and what is allowed", () => {
  const refused = (options: RunAgentOptions, settings: Settings, list: string[], command?: string) => {
    const picked = pickModel(options, settings, list, command);
    assert.equal(picked.ok, false, JSON.stringify({ settings, list, command }));
    return picked.ok ? "" : picked.error;
  };
  assert.equal(
    refused(run(env, { model: "opus" }), {}, ["sonnet", "claude-haiku-4-5"]),
    'The model "opus" (claude-opus-4-6), the run\'s model, is not available: the settings\' availableModels allow only "sonnet", "claude-haiku-4-5".',
  );
  assert.match(refused(run({ HARNESS_MODEL: "claude-opus-4-6" }), {}, ["sonnet"]), /^The model "claude-opus-4-6", HARNESS_MODEL, is not available/);
  assert.match(refused(run({ ANTHROPIC_MODEL: "opus" }), {}, ["sonnet"]), /"opus" \(claude-opus-4-6\), ANTHROPIC_MODEL,/);
  assert.match(refused(run(env), { model: "opus" }, ["sonnet"]), /"opus" \(claude-opus-4-6\), the settings' model,/);
  assert.match(refused(run(env), {}, ["sonnet"], "haiku"), /"haiku" \(claude-haiku-4-5\), the command's model,/);
  assert.match(refused(run(env, { model: "opus" }), {}, []), /availableModels allow no model to be chosen; leave the model unset for the default/);
});

test("the default model, when the list leaves it out, is the first model allowed; with an empty list it stays", () => {
  const model = (options: RunAgentOptions, settings: Settings, list: string[] | undefined) => {
    const picked = pickModel(options, settings, list);
    assert.ok(picked.ok, picked.ok ? "" : picked.error);
    return picked.model;
  };
  assert.equal(model(run(env), {}, ["haiku", "opus"]), "claude-haiku-4-5");
  assert.equal(model(run(env), { model: "default" }, ["opus-4-5"]), "claude-opus-4-5");
  assert.equal(model(run(env), {}, ["claude-opus-4-5-20251101"]), "claude-opus-4-5-20251101");
  assert.equal(model(run(env), {}, ["sonnet"]), "claude-sonnet-4-6", "the default itself when it is allowed");
  assert.equal(model(run(env), {}, []), "claude-sonnet-4-6");
  assert.equal(model(run(env, { model: "opus" }), {}, undefined), "claude-opus-4-6", "no list, no limit");
  assert.equal(model(run(env, { model: "opus" }), {}, ["opus"]), "claude-opus-4-6");
});

test("a model switched to (by name alone) that the list leaves out is refused, naming it, the model its alias stands for and what is allowed", () => {
  assert.equal(modelRefusal("opus", ["sonnet", "claude-haiku-4-5"], env), 'The model "opus" (claude-opus-4-6) is not available: the settings\' availableModels allow only "sonnet", "claude-haiku-4-5".');
  assert.equal(modelRefusal(" claude-opus-4-6 ", ["sonnet"], env), 'The model "claude-opus-4-6" is not available: the settings\' availableModels allow only "sonnet".');
  assert.equal(modelRefusal("opus", ["opus"], { ANTHROPIC_DEFAULT_OPUS_MODEL: "my-opus" }), undefined);
  assert.equal(modelRefusal("sonnet[1m]", ["sonnet"], env), undefined);
});
