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
  assert.deepEqual(subagentPermissionMode("default", general!), { mode: "default" });
  assert.deepEqual(subagentPermissionMode("bypassPermissions", explore!), { mode: "plan" });
  assert.deepEqual(subagentPermissionMode("acceptEdits", explore!), { mode: "plan" });
  assert.deepEqual(subagentPermissionMode("default", custom), { mode: "acceptEdits" });
  assert.deepEqual(subagentPermissionMode("bypassPermissions", custom), { mode: "bypassPermissions" });
});

test("permission modes are never looser than the harness allows: a planning parent, a project's bypass, bypass turned off", () => {
  const project: AgentDefinition = { name: "p", description: "d", systemPrompt: "p", permissionMode: "bypassPermissions", source: "project" };
  const user: AgentDefinition = { ...project, source: "user" };
  const editor: AgentDefinition = { ...project, permissionMode: "acceptEdits" };
  assert.deepEqual(subagentPermissionMode("default", project), { mode: "default", dropped: "bypassPermissions" });
  assert.deepEqual(subagentPermissionMode("default", user), { mode: "bypassPermissions" });
  assert.deepEqual(subagentPermissionMode("default", user, { bypassDisabled: true }), { mode: "default", dropped: "bypassPermissions" });
  assert.deepEqual(subagentPermissionMode("plan", editor), { mode: "plan", dropped: "acceptEdits" });
  assert.deepEqual(subagentPermissionMode("acceptEdits", { ...editor, permissionMode: undefined }), { mode: "acceptEdits" });
});
