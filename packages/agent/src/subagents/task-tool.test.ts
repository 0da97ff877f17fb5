import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinAgents } from "./builtin-agents.ts";
import { taskTool } from "./task-tool.ts";
import type { AgentDefinition } from "./types.ts";

test("the Task tool has Claude Code's name and input shape, and its description lists every agent with its tools", () => {
  const custom: AgentDefinition = {
    name: "db-expert",
    description: "Answers questions about the schema.",
    systemPrompt: "p",
    disallowedTools: ["Write", "Edit"],
    source: "project",
  };
  const tool = taskTool([...builtinAgents(), custom]);
  assert.equal(tool.name, "Task");
  assert.deepEqual(tool.inputSchema.required, ["description", "prompt", "subagent_type"]);
  assert.deepEqual(Object.keys(tool.inputSchema.properties as object), ["description", "prompt", "subagent_type", "model", "run_in_background"]);
  assert.match(tool.description, /^- general-purpose: General-purpose agent .* \(Tools: all tools\)$/m);
  assert.match(tool.description, /^- Explore: Fast read-only agent .* \(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch\)$/m);
  assert.match(tool.description, /^- Plan: .* \(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch\)$/m);
  assert.match(tool.description, /^- db-expert: Answers questions about the schema\. \(Tools: all tools except Write, Edit\)$/m);
});

test("the Task tool's description tells the model of model and run_in_background, and how a background agent's result comes back", () => {
  const { description } = taskTool(builtinAgents());
  assert.match(description, /model.*"sonnet", "opus" or "haiku".*agent type's own model/);
  assert.match(description, /run_in_background: true/);
  assert.match(description, /notified .* when it finishes/);
  assert.match(description, /TaskOutput/);
  assert.match(description, /TaskStop/);
});
