// Agents over the Open Harness API, read: the sub-agents a session's runs would have (the
// built-in ones, the enabled plugins' as `plugin:agent`, then the .md files of the user's and the
// workspace's .claude/agents, a later one replacing an earlier one of the same name), found as the
// runs find them (@harness/agent's discoverPlugins and loadAgentDefinitions). Creating, changing and removing the
// workspace's agents is in routes-agents-write.ts. The system prompt is shown through the logs' secret-hiding rule.
import { stat } from "node:fs/promises";
import type { Context } from "hono";
import { loadAgentDefinitions } from "@harness/agent/load-agents";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { SessionQuery } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { page, PaginationSchema } from "./shapes.ts";

const ListQuery = PaginationSchema.extend({ session_id: SessionQuery.shape.session_id }).passthrough();

export type AgentShape = {
  id: string;
  name: string;
  description: string;
  version: string;
  skills: { skill_id: string; required: boolean }[];
  mcp_servers: { server_id: string; required: boolean }[];
  config: { model?: string; system_prompt?: string };
  /** Where it comes from: built-in, user (~/.claude/agents) or project (the workspace's). */
  scope: string;
  created_at: string;
  updated_at: string;
};

/** The plugins the settings enable, as a run loads them; none (and the loader not imported) when
 * they enable none, as in a run. */
export async function pluginsOf(place: SessionSettings["place"], loaded: SessionSettings["loaded"]) {
  const { enabledPlugins } = loaded.settings;
  if (enabledPlugins === undefined) return [];
  const { discoverPlugins } = await import("@harness/agent/discover-plugins");
  return (await discoverPlugins({ home: place.home, projectRoot: place.projectRoot, cwd: place.cwd, enabledPlugins, sources: loaded.sources })).plugins;
}

/** The agents of the session the query names, in the order the runs load them. The dates are the
 * file's last change (the server's start for a built-in one). */
export async function agentsOf(oh: OpenHarness, c: Context, settings?: SessionSettings): Promise<AgentShape[]> {
  const { place, loaded, hide } = settings ?? (await sessionSettings(oh, c));
  const plugins = await pluginsOf(place, loaded);
  const { agents } = await loadAgentDefinitions({ home: place.home, projectRoot: place.projectRoot, plugins });
  return Promise.all(
    agents.map(async (agent): Promise<AgentShape> => {
      const changed = agent.file ? await stat(agent.file).then((s) => s.mtime.toISOString(), () => undefined) : undefined;
      const at = changed ?? oh.startedAt;
      return {
        id: agent.name,
        name: agent.name,
        description: hide(agent.description),
        version: "",
        skills: (agent.skills ?? []).map((skill) => ({ skill_id: skill, required: true })),
        mcp_servers: (agent.mcpServers ?? []).map((server) => ({ server_id: server.name, required: true })),
        config: { ...(agent.model !== undefined && { model: agent.model }), ...(agent.systemPrompt !== "" && { system_prompt: hide(agent.systemPrompt) }) },
        scope: agent.source,
        created_at: at,
        updated_at: at,
      };
    }),
  );
}

/** The session's agent `id`, or 404 agent_not_found. */
export async function agentOf(oh: OpenHarness, c: Context, id: string, settings?: SessionSettings): Promise<AgentShape> {
  const agent = (await agentsOf(oh, c, settings)).find((a) => a.id === id);
  if (!agent) throw new ApiError(404, "agent_not_found", `no agent "${id}" for the session's runs (agents are read from .claude/agents in the workspace and the user's home)`);
  return agent;
}

export function mountAgentRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/agents`,
    handle(async (c) => {
      const query = queryOf(c, ListQuery);
      return c.json(page(await agentsOf(oh, c), query));
    }),
  );
  app.get(
    `${H}/agents/:agentId`,
    handle(async (c) => c.json({ agent: await agentOf(oh, c, c.req.param("agentId")!) })),
  );
}
