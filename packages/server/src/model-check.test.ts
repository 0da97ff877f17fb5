import assert from "node:assert/strict";
import { test } from "node:test";
import { modelCheck } from "./model-check.ts";

test("modelCheck: what the builtin backend can run passes; an unknown provider, a missing id, OpenAI's API without its key do not", () => {
  const check = modelCheck({});
  assert.equal(check("claude-sonnet-4-5"), undefined);
  assert.equal(check("sonnet"), undefined, "an alias");
  assert.equal(check("ollama/llama3.1:8b"), undefined);
  assert.match(check("gemini/pro") ?? "", /unknown model provider "gemini"/);
  assert.match(check("openai/gpt-5") ?? "", /OPENAI_API_KEY is not set/);
  assert.equal(modelCheck({ OPENAI_API_KEY: "k" })("openai/gpt-5"), undefined);
});

test("modelCheck: a server whose runs go to Claude Code refuses other providers' models", () => {
  const check = modelCheck({ HARNESS_BACKEND: "claude-code", OPENAI_API_KEY: "k" });
  assert.equal(check("anthropic/claude-opus-4-1"), undefined);
  assert.match(check("openai/gpt-5") ?? "", /runs Claude Code, which runs Anthropic's models only/);
});
