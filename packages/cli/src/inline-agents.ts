// `harness run --agents '<JSON>'`: sub-agents given on the command line, as Claude Code's --agents
// takes them: `{"name": {"description", "prompt", "tools"?, "disallowedTools"?, "model"?,
// "permissionMode"?, "maxTurns"?, "skills"?}}`. Keys of Claude Code's this harness does not act on are ignored,
// as in agent files. Pure and free of the agent package: it answers before anything loads.
import type { AgentDefinition } from "@harness/agent";

/** The names the model passes as subagent_type: one word, as in an agent file. */
const AGENT_NAME = /^[^\s,()]+$/;
const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const;

/** The agents of `text`, or what is wrong with it in one line (without the flag's name). */
export function parseInlineAgents(text: string): AgentDefinition[] | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return `must be a JSON object of agents by name, such as {"reviewer": {"description": "…", "prompt": "…"}}, not ${kindOf(data)}`;
  }
  const agents: AgentDefinition[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (!AGENT_NAME.test(name)) return `"${name}" is not a valid agent name: one word, such as code-reviewer (the model passes it as subagent_type)`;
    const agent = agentOf(name, value);
    if (typeof agent === "string") return `${name}: ${agent}`;
    agents.push(agent);
  }
  return agents;
}

function agentOf(name: string, value: unknown): AgentDefinition | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `must be an object with "description" and "prompt", not ${kindOf(value)}`;
  const fields = value as Record<string, unknown>;
  const description = textField(fields, "description", "saying when to use the agent");
  if (!description.ok) return description.message;
  const prompt = textField(fields, "prompt", "the agent's system prompt");
  if (!prompt.ok) return prompt.message;
  const agent: AgentDefinition = { name, description: description.value, systemPrompt: prompt.value, source: "cli" };
  for (const key of ["tools", "disallowedTools"] as const) {
    const list = fields[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((entry) => typeof entry === "string")) return `"${key}" must be a list of tool names, such as ["Read", "Grep"], not ${kindOf(list)}`;
    const names = list.map((entry) => entry.trim()).filter((entry) => entry !== "");
    // "*" is every tool, as in an agent file.
    if (key === "disallowedTools") agent.disallowedTools = names;
    else if (!names.includes("*")) agent.tools = names;
  }
  if (fields.model !== undefined) {
    if (typeof fields.model !== "string" || fields.model.trim() === "") return `"model" must be text (sonnet, opus, haiku, inherit or a model id), not ${kindOf(fields.model)}`;
    agent.model = fields.model.trim();
  }
  if (fields.permissionMode !== undefined) {
    const mode = PERMISSION_MODES.find((candidate) => candidate === fields.permissionMode);
    if (!mode) return `"permissionMode" must be one of ${PERMISSION_MODES.join(", ")}, not ${kindOf(fields.permissionMode)}`;
    agent.permissionMode = mode;
  }
  if (fields.skills !== undefined) {
    const list = fields.skills;
    if (!Array.isArray(list) || !list.every((entry) => typeof entry === "string")) return `"skills" must be a list of skill names, such as ["deploy"], not ${kindOf(list)}`;
    const names = list.map((entry) => entry.trim()).filter((entry) => entry !== "");
    if (names.length > 0) agent.skills = names;
  }
  if (fields.maxTurns !== undefined) {
    const turns = fields.maxTurns;
    if (typeof turns !== "number" || !Number.isSafeInteger(turns) || turns < 1) return `"maxTurns" must be a whole number of at least 1, not ${kindOf(turns)}`;
    agent.maxTurns = turns;
  }
  return agent;
}

/** The text of `fields[key]`, trimmed, or what is wrong with it. */
function textField(fields: Record<string, unknown>, key: string, what: string): { ok: true; value: string } | { ok: false; message: string } {
  const value = fields[key];
  if (value === undefined) return { ok: false, message: `"${key}" is missing: every agent needs one, ${what}` };
  if (typeof value !== "string") return { ok: false, message: `"${key}" must be text, not ${kindOf(value)}` };
  if (value.trim() === "") return { ok: false, message: `"${key}" must not be empty` };
  return { ok: true, value: value.trim() };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the text ${JSON.stringify(value)}`;
  return `the ${typeof value} ${JSON.stringify(value)}`;
}
