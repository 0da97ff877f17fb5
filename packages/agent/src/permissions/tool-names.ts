/** Tools that write files. `Edit(...)` rules apply to all of them. */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);

/** Tools that read files. `Read(...)` rules apply to all of them (LSP: the file it asks a language
 * server about). */
export const READ_TOOLS: ReadonlySet<string> = new Set(["Read", "Glob", "Grep", "NotebookRead", "LS", "LSP"]);

/** Tools that neither write files nor run commands, allowed in every mode unless a rule says
 * otherwise. Task is here because a sub-agent's own calls are checked one by one; KillShell and
 * TaskStop only stop a background shell or agent the agent itself started; the MCP resource tools only read what servers
 * the user started offer to be read, as in Claude Code. */
export const NO_APPROVAL_TOOLS: ReadonlySet<string> = new Set([
  "TodoWrite",
  "ToolSearch",
  "BashOutput",
  "KillShell",
  "WebSearch",
  "Task",
  "TaskOutput",
  "TaskStop",
  "Skill",
  "ExitPlanMode",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
  // The main agent's answer to an output schema (harness/structured-output.ts).
  "StructuredOutput",
]);

/** Every built-in tool a rule may name, Agent (Task's other name) included. */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([...WRITE_TOOLS, ...READ_TOOLS, ...NO_APPROVAL_TOOLS, "Bash", "WebFetch", "Agent"]);

/** Tools whose rules take a path pattern. */
export const PATH_RULE_TOOLS: ReadonlySet<string> = new Set([...WRITE_TOOLS, ...READ_TOOLS]);

/** Claude Code renamed Task to Agent; rules may use either name. */
export function canonicalToolName(name: string): string {
  return name === "Agent" ? "Task" : name;
}

/** Whether a rule naming `ruleTool` covers a call of `callTool`, ignoring any specifier. */
export function ruleCoversTool(ruleTool: string, callTool: string): boolean {
  const rule = canonicalToolName(ruleTool);
  const call = canonicalToolName(callTool);
  if (rule === call) return true;
  if (rule === "Edit") return WRITE_TOOLS.has(call);
  if (rule === "Read") return READ_TOOLS.has(call);
  if (rule.startsWith("mcp__") && call.startsWith("mcp__")) return mcpRuleCovers(rule, call);
  return false;
}

/** Whether a rule naming `ruleTool` names the tool `toolName` itself (Agent and Task alike, an MCP
 * server's or wildcard rule its tools), not through the groups Edit and Read stand for. A tool-wide
 * deny rule that names a tool so takes it out of what the model is offered, as in Claude Code. */
export function ruleNamesTool(ruleTool: string, toolName: string): boolean {
  const rule = canonicalToolName(ruleTool);
  const tool = canonicalToolName(toolName);
  if (rule === tool) return true;
  return rule.startsWith("mcp__") && tool.startsWith("mcp__") && mcpRuleCovers(rule, tool);
}

/** `mcp__server` covers every tool of the server; `mcp__server__*` (any `*` wildcard) matches names. */
function mcpRuleCovers(rule: string, call: string): boolean {
  if (rule.includes("*")) {
    const pattern = rule.split("*").map(escapeRegExp).join(".*");
    return new RegExp(`^${pattern}$`).test(call);
  }
  const isServerRule = !rule.slice("mcp__".length).includes("__");
  return isServerRule && call.startsWith(`${rule}__`);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
