import assert from "node:assert/strict";
import { test } from "node:test";
import { subagentPermissionMode } from "./agent-permissions.ts";
import { resolveAgentModel } from "./agent-model.ts";
import { builtinAgents } from "./builtin-agents.ts";
import type { AgentDefinition } from "./types.ts";

test("an agent's model: inherit, Claude aliases, full ids", () => {
  const parent = "claude-sonnet-4-6";
  assert.equal(resolveAgentModel(undefined, parent, {}), parent);
  assert.equal(resolveAgentModel("inherit", parent, {}), parent);
  assert.equal(resolveAgentModel("haiku", parent, {}), "claude-haiku-4-5");
  assert.equal(resolveAgentModel("Opus", parent, {}), "claude-opus-4-6");
  assert.equal(resolveAgentModel("sonnet", "anthropic/claude-opus-4-1", {}), "claude-sonnet-4-6");
  assert.equal(resolveAgentModel("claude-opus-4-1-20250805", parent, {}), "claude-opus-4-1-20250805");
});

test("aliases follow ANTHROPIC_DEFAULT_*_MODEL, and CLAUDE_CODE_SUBAGENT_MODEL wins for every agent", () => {
  const parent = "claude-sonnet-4-6";
  assert.equal(resolveAgentModel("haiku", parent, { ANTHROPIC_DEFAULT_HAIKU_MODEL: "claude-3-5-haiku-latest" }), "claude-3-5-haiku-latest");
  const env = { CLAUDE_CODE_SUBAGENT_MODEL: "opus" };
  assert.equal(resolveAgentModel(undefined, parent, env), "claude-opus-4-6");
  assert.equal(resolveAgentModel("haiku", parent, env), "claude-opus-4-6");
});

test("a Claude alias under a non-Claude main model keeps the main model, which its provider can serve", () => {
  assert.equal(resolveAgentModel("haiku", "gpt-4o", {}), "gpt-4o");
  assert.equal(resolveAgentModel("qwen3:8b", "gpt-4o", {}), "qwen3:8b");
});

test("permission modes: built-in read-only agents stay in plan, bypass passes on to custom agents", () => {
  const [general, explore] = builtinAgents();
  const custom: AgentDefinition = { name: "c", description: "d", systemPrompt: "p", permissionMode: "acceptEdits", source: "project" };
  assert.equal(subagentPermissionMode("default", general), "default");
  assert.equal(subagentPermissionMode("bypassPermissions", explore), "plan");
  assert.equal(subagentPermissionMode("acceptEdits", explore), "plan");
  assert.equal(subagentPermissionMode("default", custom), "acceptEdits");
  assert.equal(subagentPermissionMode("bypassPermissions", custom), "bypassPermissions");
});
