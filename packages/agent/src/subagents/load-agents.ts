import { isMissingError, readConfigDir, readConfigText, statConfig } from "../config/files.ts";
import path from "node:path";
import { withPluginVariables, type Plugin } from "../plugins/types.ts";
import { builtinAgents } from "./builtin-agents.ts";
import { parseAgentFile } from "./parse-agent-file.ts";
import type { AgentDefinition, AgentDiagnostic, AgentSource } from "./types.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

export type LoadAgentDefinitionsOptions = {
  /** The user's home directory: user agents live in `<home>/.claude/agents`. */
  home: string;
  /** The project root: project agents live in `<projectRoot>/.claude/agents`. */
  projectRoot: string;
  /** Start from the built-in agents (general-purpose, Explore, Plan); default true. */
  includeBuiltins?: boolean;
  /** Plugins whose agents (their `agentPaths`) are added, namespaced, before the user's. */
  plugins?: readonly Plugin[];
  /** Directories added with the run (--add-dir), whose agents count as the project's, the
   * project's own replacing them (see harness/setup/added-dirs.ts). */
  additionalDirs?: readonly string[];
};

export type AgentDefinitions = { agents: AgentDefinition[]; diagnostics: AgentDiagnostic[] };

/** The agents a run can start: built-ins, then the `.md` files of `~/.claude/agents`, then those
 * of the added directories' `.claude/agents`, then those of `<root>/.claude/agents` (folders within included), a later one replacing an earlier one of the same name. A bad file
 * becomes a diagnostic and is skipped; a missing directory is no error. Never rejects. */
export async function loadAgentDefinitions(options: LoadAgentDefinitionsOptions): Promise<AgentDefinitions> {
  const diagnostics: AgentDiagnostic[] = [];
  const byName = new Map<string, AgentDefinition>();
  if (options.includeBuiltins !== false) for (const agent of builtinAgents()) byName.set(agent.name, agent);
  for (const plugin of options.plugins ?? []) {
    for (const where of plugin.agentPaths) for (const agent of await pluginAgents(where, plugin, diagnostics)) byName.set(agent.name, agent);
  }

  const scopes: [AgentSource, string][] = [
    ["user", path.join(userConfigDir(options.home), "agents")],
    ...(options.additionalDirs ?? []).map((dir): [AgentSource, string] => ["project", path.join(dir, ".claude", "agents")]),
    ["project", path.join(options.projectRoot, ".claude", "agents")],
  ];
  // The same directory as both (a project at the home directory) is one scope: project.
  if (path.resolve(scopes[0][1]) === path.resolve(scopes.at(-1)![1])) scopes.shift();

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

/** Frontmatter keys Claude Code does not honour in a plugin's agent: a plugin could otherwise run
 * hooks, start servers, or loosen permissions, under an agent's cover. */
const NOT_FOR_PLUGINS = ["hooks", "mcpServers", "permissionMode"] as const;

/** The agents of one of a plugin's agent paths (a directory, or one .md file), named
 * `<plugin>:<name>`, ${CLAUDE_PLUGIN_ROOT} in their prompt standing for the plugin's directory. */
async function pluginAgents(where: string, plugin: Plugin, diagnostics: AgentDiagnostic[]): Promise<AgentDefinition[]> {
  const isFile = await statConfig(where).then(
    (stats) => stats.isFile(),
    () => false,
  );
  const found = isFile ? await loadDirectory(path.dirname(where), "plugin", diagnostics, [path.basename(where)]) : await loadDirectory(where, "plugin", diagnostics);
  return found.map((agent) => {
    const own: AgentDefinition = { ...agent, name: `${plugin.name}:${agent.name}`, plugin: plugin.name, systemPrompt: withPluginVariables(agent.systemPrompt, plugin) };
    for (const key of NOT_FOR_PLUGINS) {
      if (own[key] === undefined) continue;
      delete own[key];
      diagnostics.push({ file: agent.file ?? where, key, message: `${key} is ignored in a plugin's agent, as in Claude Code; the agent loads without it` });
    }
    return own;
  });
}

async function loadDirectory(dir: string, source: AgentSource, diagnostics: AgentDiagnostic[], only?: string[]): Promise<AgentDefinition[]> {
  const names = only ?? (await agentFiles(dir, diagnostics));
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
