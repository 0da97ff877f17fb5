import { isMissingError, readConfigDir, readConfigText } from "../config-files.ts";
import path from "node:path";
import { builtinAgents } from "./builtin-agents.ts";
import { parseAgentFile } from "./parse-agent-file.ts";
import type { AgentDefinition, AgentDiagnostic, AgentSource } from "./types.ts";

export type LoadAgentDefinitionsOptions = {
  /** The user's home directory: user agents live in `<home>/.claude/agents`. */
  home: string;
  /** The project root: project agents live in `<projectRoot>/.claude/agents`. */
  projectRoot: string;
  /** Start from the built-in agents (general-purpose, Explore, Plan); default true. */
  includeBuiltins?: boolean;
};

export type AgentDefinitions = { agents: AgentDefinition[]; diagnostics: AgentDiagnostic[] };

/** The agents a run can start: built-ins, then the `.md` files of `~/.claude/agents`, then those
 * of `<root>/.claude/agents` (folders within included), a later one replacing an earlier one of the same name. A bad file
 * becomes a diagnostic and is skipped; a missing directory is no error. Never rejects. */
export async function loadAgentDefinitions(options: LoadAgentDefinitionsOptions): Promise<AgentDefinitions> {
  const diagnostics: AgentDiagnostic[] = [];
  const byName = new Map<string, AgentDefinition>();
  if (options.includeBuiltins !== false) for (const agent of builtinAgents()) byName.set(agent.name, agent);

  const scopes: [AgentSource, string][] = [
    ["user", path.join(options.home, ".claude", "agents")],
    ["project", path.join(options.projectRoot, ".claude", "agents")],
  ];
  // The same directory as both (a project at the home directory) is one scope: project.
  if (path.resolve(scopes[0][1]) === path.resolve(scopes[1][1])) scopes.shift();

  for (const [source, dir] of scopes) {
    const loaded = await loadDirectory(dir, source, diagnostics);
    for (const agent of loaded) byName.set(agent.name, agent);
  }
  return { agents: [...byName.values()], diagnostics };
}

/** Agent files may be sorted into folders (`agents/review/security.md`), as Claude Code allows. */
const MAX_FOLDER_DEPTH = 4;

/** The `.md` files under `dir` (relative paths, sorted), folders included down to MAX_FOLDER_DEPTH;
 * hidden folders and links to folders are not entered. */
async function agentFiles(dir: string, diagnostics: AgentDiagnostic[], depth = 0): Promise<string[]> {
  let entries;
  try {
    entries = await readConfigDir(dir);
  } catch (error) {
    if (!isMissingError(error)) diagnostics.push({ file: dir, message: `cannot read the agents directory: ${(error as Error).message}` });
    return [];
  }
  const names: string[] = [];
  for (const entry of entries) {
    if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md")) names.push(entry.name);
    else if (entry.isDirectory() && !entry.name.startsWith(".") && depth < MAX_FOLDER_DEPTH) {
      for (const inner of await agentFiles(path.join(dir, entry.name), diagnostics, depth + 1)) names.push(path.join(entry.name, inner));
    }
  }
  return names.sort();
}

async function loadDirectory(dir: string, source: AgentSource, diagnostics: AgentDiagnostic[]): Promise<AgentDefinition[]> {
  const names = await agentFiles(dir, diagnostics);
  const agents: AgentDefinition[] = [];
  const fileOf = new Map<string, string>();
  for (const name of names) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = await readConfigText(file);
    } catch (error) {
      diagnostics.push({ file, message: `cannot read the agent file: ${(error as Error).message}` });
      continue;
    }
    const parsed = parseAgentFile(text, file, source);
    if (!parsed.ok) {
      diagnostics.push(...parsed.diagnostics);
      continue;
    }
    diagnostics.push(...parsed.warnings);
    const earlier = fileOf.get(parsed.agent.name);
    if (earlier !== undefined) {
      diagnostics.push({ file, key: "name", message: `name "${parsed.agent.name}" is already used by ${earlier}; this file is ignored` });
      continue;
    }
    fileOf.set(parsed.agent.name, file);
    agents.push(parsed.agent);
  }
  return agents;
}
