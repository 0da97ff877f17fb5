// Writing a session's sub-agents: the .md files of .claude/agents in its workspace (the project's
// scope), each written whole beside its place and renamed there (writeFileAt), confined to the
// workspace. The agents of other scopes (built-in, a plugin's, the user's ~/.claude/agents) are
// read here, never written.
import { readFile } from "node:fs/promises";
import { isAbsolute, join, posix, relative as pathFrom, sep } from "node:path";
import type { Context } from "hono";
import type { AgentDefinition } from "@harness/agent";
import { loadAgentDefinitions } from "@harness/agent/load-agents";
import { realPathOf } from "@harness/agent/real-paths";
import { agentAsLoaded, agentFileText } from "./agent-files.ts";
import { ApiError } from "./errors.ts";
import type { OpenHarness } from "./common.ts";
import { inTurn } from "./one-at-a-time.ts";
import { pluginsOf } from "./routes-agents.ts";
import { stillOwned } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { deleteAt, openFile, writeFileAt } from "./workspace-files.ts";

/** Where the runs read the workspace's own agents. */
export const AGENTS_DIR = ".claude/agents";

/** The session the query names, where its runs work, and the agents they would have. */
export type AgentPlace = { settings: SessionSettings; root: string; sessionId: string; agents: AgentDefinition[] };

export async function agentPlace(oh: OpenHarness, c: Context, settings?: SessionSettings): Promise<AgentPlace> {
  settings ??= await sessionSettings(oh, c);
  const { place, loaded } = settings;
  const plugins = await pluginsOf(place, loaded);
  const { agents } = await loadAgentDefinitions({ home: place.home, projectRoot: place.projectRoot, plugins });
  return { settings, root: place.cwd, sessionId: c.req.query("session_id")!, agents };
}

/** `work` given the place of the session of `settings`, its agents read once the API's writes of
 * that workspace's agents before it are done: what it finds there is still so when it writes. */
export function agentsInTurn<T>(oh: OpenHarness, c: Context, settings: SessionSettings, work: (at: AgentPlace) => Promise<T>): Promise<T> {
  return inTurn(`agents ${settings.place.cwd}`, async () => work(await agentPlace(oh, c, settings)));
}

/** The agent `id` of the place, or 404 agent_not_found. */
export function definitionOf(at: AgentPlace, id: string): AgentDefinition {
  const agent = at.agents.find((a) => a.name === id);
  if (!agent) throw new ApiError(404, "agent_not_found", `no agent "${id}" for the session's runs (agents are read from .claude/agents in the workspace and the user's home)`);
  return agent;
}

const SCOPE_WHY: Record<string, string> = {
  "built-in": "is built into the harness",
  plugin: "comes with a plugin",
  user: "is the user's, in ~/.claude/agents of the server's home, which this API does not write",
  cli: "is given with the runs",
};

/** The workspace path of the agent's file, which may be changed: 403 naming its scope for one that
 * is not the workspace's own (clone it to have one that is). */
export function writableFile(at: AgentPlace, agent: AgentDefinition, operation: string): string {
  const refuse = (why: string) => new ApiError(403, "forbidden", `agent "${agent.name}" (scope ${agent.source}) ${why}: only the workspace's agents (scope project) are changed over this API; clone it to have one that is`, operation);
  if (agent.source !== "project" || !agent.file) throw refuse(SCOPE_WHY[agent.source] ?? "is not the workspace's");
  const relative = pathFrom(at.root, agent.file);
  if (relative.startsWith("..") || isAbsolute(relative)) throw refuse("is in the project above the workspace, not in it");
  return relative.split(sep).join("/");
}

/** 409 agent_exists when the place has an agent `name`. */
export function checkFree(at: AgentPlace, name: string, operation: string): void {
  const there = at.agents.find((a) => a.name === name);
  if (there) throw new ApiError(409, "agent_exists", `name: an agent "${name}" is there already (scope ${there.source}): choose another name`, operation);
}

/** The text of the agent's file as the runs have it: the workspace's file as it is; the user's file
 * (in the server's home) as it is too, its text shown through the logs' secret-hiding rule (as
 * agents.get shows it), so that a copy keeps every key that limits the agent (its hooks too); an
 * agent without a file of its own (built in, a plugin's, whose hooks and servers the runs leave out)
 * made into one from what the runs have of it. */
export async function agentText(at: AgentPlace, agent: AgentDefinition): Promise<string> {
  if (agent.source === "project" && agent.file) {
    const relative = pathFrom(at.root, agent.file);
    if (!relative.startsWith("..") && !isAbsolute(relative)) {
      const { handle } = await openFile(at.root, relative.split(sep).join("/"));
      try {
        return await handle.readFile("utf8");
      } finally {
        await handle.close();
      }
    }
  }
  const { hide } = at.settings;
  if (agent.source === "user" && agent.file) {
    const hidden = hide(await readFile(agent.file, "utf8"));
    // A secret hidden where YAML reads "***" otherwise (as an alias): made from what the runs have.
    const same = await agentAsLoaded(hidden, posix.basename(agent.file)).then((loaded) => loaded.name === agent.name, () => false);
    if (same) return hidden;
  }
  return agentFileText({
    name: agent.name.replace(/^.*:/, ""),
    description: hide(agent.description),
    systemPrompt: hide(agent.systemPrompt),
    ...(agent.model !== undefined && { model: agent.model }),
    ...(agent.tools !== undefined && { tools: agent.tools }),
    ...(agent.disallowedTools !== undefined && { disallowedTools: agent.disallowedTools }),
    ...(agent.permissionMode !== undefined && { permissionMode: agent.permissionMode }),
    ...(agent.maxTurns !== undefined && { maxTurns: agent.maxTurns }),
    ...(agent.skills !== undefined && { skills: agent.skills }),
    ...(agent.mcpServers !== undefined && { mcpServers: agent.mcpServers.map((server) => server.name) }),
  });
}

/** 403 when the workspace's .claude is the user's own (a workspace that is the runs' home): the
 * user's ~/.claude is read only over this API. */
export function refuseHome(root: string, home: string, operation: string): void {
  if (realPathOf(join(root, ".claude")) === realPathOf(join(home, ".claude"))) {
    throw new ApiError(403, "forbidden", "the session's workspace is the server's home directory: its .claude is the user's (~/.claude), which this API does not write", operation);
  }
}

/** Writes `text` (checked to load as the agent `name`) as the new file `.claude/agents/<name>.md`,
 * or at `relative` (replacing what is there with `replace`). 409 when the file is there already. */
export async function writeAgentFile(oh: OpenHarness, c: Context, at: AgentPlace, name: string, text: string, operation: string, relative = `${AGENTS_DIR}/${name}.md`, replace = false): Promise<void> {
  refuseHome(at.root, at.settings.place.home, operation);
  const loaded = await agentAsLoaded(text, posix.basename(relative));
  if (loaded.name !== name) throw new ApiError(400, "invalid_request", `name: the file names the agent "${loaded.name}", not "${name}"`, operation);
  await writeFileAt(at.root, relative, Buffer.from(text), replace, stillOwned(oh, c, at.sessionId)).catch((error) => {
    if (error instanceof ApiError && error.code === "file_exists") throw new ApiError(409, "agent_exists", `name: the file ${relative} is there already (an agent file the runs skip, or another's): choose another name, or delete it`, operation);
    throw error;
  });
}

/** Removes the agent's file (only it). */
export async function deleteAgentFile(at: AgentPlace, relative: string): Promise<void> {
  refuseHome(at.root, at.settings.place.home, "agents.delete");
  await deleteAt(at.root, relative, false);
}
