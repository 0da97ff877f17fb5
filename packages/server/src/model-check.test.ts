import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { modelCheck, sessionModelCheck } from "./model-check.ts";

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

test("sessionModelCheck: the settings' availableModels of the session's workspace and the server's home; left to Claude Code's own settings under it", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "model-check-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ availableModels: ["haiku"] }));
  const workspaces: string[] = [];
  const check = sessionModelCheck({ HOME: home }, (userId, sessionId) => (workspaces.push(`${userId}/${sessionId}`), join(dir, "workspaces", userId, sessionId)));
  const where = { userId: "u", sessionId: "s" };
  assert.equal(await check("claude-haiku-4-5", where), undefined);
  assert.equal(await check("opus", where), `the settings' availableModels allow only "haiku"`);
  assert.match((await check("gemini/pro", where)) ?? "", /unknown model provider/, "what the server cannot run is said first");
  assert.deepEqual(workspaces, ["u/s", "u/s"]);
  assert.equal(sessionModelCheck({ HOME: home, HARNESS_BACKEND: "claude-code" }, () => dir)("opus", where), undefined);
});
