// One `.claude/agents/<name>.md` file → an AgentDefinition, or diagnostics naming each bad key.
import { z } from "zod";
import { frontmatterHooks } from "../hooks/parse-config.ts";
import { PERMISSION_MODES } from "../permissions/types.ts";
import { parseAgentFrontmatter } from "./frontmatter.ts";
import type { AgentDefinition, AgentDiagnostic, AgentSource } from "./types.ts";

/** `warnings`: what was left out of a file that loads (a bad hook). */
export type ParsedAgentFile = { ok: true; agent: AgentDefinition; warnings: AgentDiagnostic[] } | { ok: false; diagnostics: AgentDiagnostic[] };

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`;
}

const required = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined
    ? `missing: every agent file needs ${what}`
    : issue.input === null
      ? `is empty: every agent file needs ${what}`
      : `must be text, but got ${kindOf(issue.input)}`;

const toolList = z
  .union([z.string(), z.array(z.string())], {
    error: (issue) => `must be a comma-separated list ("Read, Grep, Glob") or a YAML list of tool names, but got ${kindOf(issue.input)}`,
  })
  .nullish();

// Unknown keys (color, memory, …) are Claude Code features this loader does not act on; they are
// ignored rather than reported. `hooks` is read apart: a hook with a mistake is left out, named,
// and the agent still loads.
const KEYS = {
  name: z
    .string({ error: required('a "name" (the subagent_type the model passes)') })
    .trim()
    .min(1, "must not be empty")
    .regex(/^[^\s,()]+$/, "must be a single word such as code-reviewer: the model passes it as subagent_type"),
  description: z.string({ error: required('a "description" saying when to use the agent') }).trim().min(1, "must not be empty"),
  tools: toolList,
  disallowedTools: toolList,
  skills: z
    .union([z.string(), z.array(z.string())], {
      error: (issue) => `must be a comma-separated list ("deploy, review") or a YAML list of skill names, but got ${kindOf(issue.input)}`,
    })
    .nullish(),
  mcpServers: z
    .array(z.union([z.string(), z.record(z.string(), z.unknown())]), {
      error: (issue) => `must be a list of server names and definitions ({"name": {"command": …}}), but got ${kindOf(issue.input)}`,
    })
    .nullish(),
  model: z
    .string({ error: (issue) => `must be sonnet, opus, haiku, inherit or a model id, but got ${kindOf(issue.input)}` })
    .trim()
    .min(1, "must not be empty: leave the key out or write inherit to use the main agent's model")
    .nullish(),
  permissionMode: z.enum(PERMISSION_MODES, { error: (issue) => `must be one of ${PERMISSION_MODES.join(", ")}, but got ${kindOf(issue.input)}` }).nullish(),
  maxTurns: z.number({ error: (issue) => `must be a whole number, but got ${kindOf(issue.input)}` }).int("must be a whole number").positive("must be at least 1").nullish(),
} as const;

export function parseAgentFile(text: string, file: string, source: AgentSource): ParsedAgentFile {
  const front = parseAgentFrontmatter(text);
  if (!front.ok) return { ok: false, diagnostics: [{ file, message: front.message }] };
  const diagnostics: AgentDiagnostic[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(KEYS)) {
    const result = (schema as z.ZodType).safeParse(front.data[key]);
    if (result.success) values[key] = result.data;
    else diagnostics.push({ file, key, message: `${key} ${result.error.issues[0]?.message ?? "is invalid"}` });
  }
  for (const [i, entry] of ((values.mcpServers as unknown[] | undefined) ?? []).entries()) {
    const count = typeof entry === "string" ? 1 : Object.keys(entry as object).length;
    if (count !== 1) diagnostics.push({ file, key: "mcpServers", message: `mcpServers[${i}] must define one server, as {"name": {"command": …}}, but defines ${count}` });
  }
  if (!front.body) diagnostics.push({ file, message: "the file has no body: the text after the frontmatter is the agent's system prompt" });
  if (diagnostics.length > 0) return { ok: false, diagnostics };

  const agent: AgentDefinition = {
    name: values.name as string,
    description: values.description as string,
    systemPrompt: front.body,
    source,
    file,
  };
  const tools = toolNames(values.tools);
  if (tools) agent.tools = tools;
  const disallowed = toolNames(values.disallowedTools);
  if (disallowed) agent.disallowedTools = disallowed;
  const skills = skillNames(values.skills);
  if (skills.length > 0) agent.skills = skills;
  const servers = ((values.mcpServers as (string | Record<string, unknown>)[] | undefined) ?? []).map((entry) =>
    typeof entry === "string" ? { name: entry.trim() } : { name: Object.keys(entry)[0]!, config: Object.values(entry)[0] },
  );
  if (servers.length > 0) agent.mcpServers = servers;
  if (typeof values.model === "string") agent.model = values.model;
  if (typeof values.permissionMode === "string") agent.permissionMode = values.permissionMode as AgentDefinition["permissionMode"];
  if (typeof values.maxTurns === "number") agent.maxTurns = values.maxTurns;
  const warnings: AgentDiagnostic[] = [];
  const hooks = frontmatterHooks(front.data.hooks, file, "agent");
  warnings.push(...hooks.diagnostics);
  // SessionStart, UserPromptSubmit, SessionEnd and StopFailure never fire while the agent runs as
  // a sub-agent; they do when it is the main thread (--agent, the settings' agent).
  if (hooks.config && Object.keys(hooks.config).length > 0) agent.hooks = hooks.config;
  return { ok: true, agent, warnings };
}

/** undefined means "every tool" (key absent, or "*" listed). */
function toolNames(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  // A comma within parentheses separates the agent types of Agent(worker, researcher).
  const entries = typeof value === "string" ? value.split(/,(?![^(]*\))/) : (value as string[]);
  const names = entries.map((name) => name.trim()).filter((name) => name !== "");
  return names.includes("*") ? undefined : names;
}

/** The names a `skills` key lists (a leading slash, as the user types them, left off). */
function skillNames(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const entries = typeof value === "string" ? value.split(",") : (value as string[]);
  return [...new Set(entries.map((name) => name.trim().replace(/^\//, "")).filter((name) => name !== ""))];
}
