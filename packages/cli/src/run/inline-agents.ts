// `harness run --agents '<JSON>'`: sub-agents given on the command line, as Claude Code's --agents
// takes them: `{"name": {"description", "prompt", "tools"?, "disallowedTools"?, "model"?,
// "permissionMode"?, "maxTurns"?, "skills"?, "mcpServers"?, "hooks"?}}`. Keys of Claude Code's this
// harness does not act on are ignored, as in agent files. Free of the agent package (it answers
// before anything loads): what is inside a hook or a server definition is checked by `checks`
// when given, and the run parses the hooks again as it loads (see harness/setup/setup.ts).
import type { AgentDefinition, HooksConfig } from "@harness/agent";

/** Checks of the agent package's, for a caller that has loaded it (agent-checks.ts): each answers
 * what is wrong with its value (naming the key within it), or undefined; for hooks, also what in
 * them is not acted on, to be said while the hooks load without it. */
export type InlineAgentChecks = {
  hooks(raw: unknown): { problem?: string; ignored: string[] };
  server(name: string, raw: unknown): string | undefined;
};

/** The names the model passes as subagent_type: one word, as in an agent file. */
const AGENT_NAME = /^[^\s,()]+$/;
const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const;

/** The agents of `text`, or what is wrong with it in one line (without the flag's name). `warn` is
 * told what the agents hold that is not acted on, once all of them are read. */
export function parseInlineAgents(text: string, checks?: InlineAgentChecks, warn?: (message: string) => void): AgentDefinition[] | string {
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
  const notes: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (!AGENT_NAME.test(name)) return `"${name}" is not a valid agent name: one word, such as code-reviewer (the model passes it as subagent_type)`;
    const agent = agentOf(name, value, checks, (note) => notes.push(`${name}: ${note}`));
    if (typeof agent === "string") return `${name}: ${agent}`;
    agents.push(agent);
  }
  for (const note of notes) warn?.(note);
  return agents;
}

function agentOf(name: string, value: unknown, checks: InlineAgentChecks | undefined, note: (message: string) => void): AgentDefinition | string {
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
  if (fields.mcpServers !== undefined) {
    const servers = mcpServersOf(fields.mcpServers, checks);
    if (typeof servers === "string") return servers;
    if (servers.length > 0) agent.mcpServers = servers;
  }
  if (fields.hooks !== undefined) {
    const hooks = fields.hooks;
    if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return `"hooks" must be an object of hook events, as in the settings, such as {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}, not ${kindOf(hooks)}`;
    const checked = checks?.hooks(hooks);
    if (checked?.problem) return `"hooks": ${checked.problem}`;
    for (const ignored of checked?.ignored ?? []) note(`"hooks": ${ignored}`);
    if (Object.keys(hooks).length > 0) agent.hooks = hooks as HooksConfig;
  }
  return agent;
}

/** The servers an agent names (strings) and defines ({"name": {…}}, one an entry), as an agent file
 * lists them. */
function mcpServersOf(list: unknown, checks: InlineAgentChecks | undefined): NonNullable<AgentDefinition["mcpServers"]> | string {
  const usage = `a list of server names and definitions, such as ["github", {"helper": {"command": "…"}}]`;
  if (!Array.isArray(list)) return `"mcpServers" must be ${usage}, not ${kindOf(list)}`;
  const servers: NonNullable<AgentDefinition["mcpServers"]> = [];
  for (const [i, entry] of list.entries()) {
    if (typeof entry === "string") {
      if (entry.trim() === "") return `"mcpServers[${i}]" must name a server, not be empty`;
      servers.push({ name: entry.trim() });
      continue;
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return `"mcpServers[${i}]" must be a server's name or {"name": {…}}, not ${kindOf(entry)}`;
    const names = Object.keys(entry);
    if (names.length !== 1) return `"mcpServers[${i}]" must define one server, as {"name": {"command": "…"}}, but defines ${names.length}`;
    const [name] = names as [string];
    const config: unknown = (entry as Record<string, unknown>)[name];
    const problem = checks?.server(name, config);
    if (problem) return `"mcpServers[${i}]": ${problem}`;
    servers.push({ name, config });
  }
  return servers;
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
