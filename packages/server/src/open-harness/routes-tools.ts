// Tools over the Open Harness API, read only: those a session's runs offer the model. After its
// first run, the names its last run reported (run.ready); before, the tools a run would start with.
// A built-in tool's description and input schema are the builtin agent's own, made by the code that
// makes them for the model (@harness/agent's defaultTools and schemaOf) from what a run in the
// session's workspace reads (its agents, skills, settings' env and sandbox). MCP servers' tools are
// those of the servers its settings configure now, with what the servers say of them: its runner
// starts them to ask (mcp-tools-now.ts); while a run is under way, the last run's, by name. Invoking a tool is
// routes-tool-invoke.ts. Tools a program registered for the session (routes-tools-write.ts) come
// last, source "custom", as the next run will offer them.
import type { Context } from "hono";
import { z } from "zod";
import { discoverSkills } from "@harness/agent/discover-skills";
import { harnessEnvOf } from "@harness/agent/harness-env";
import { loadAgentDefinitions } from "@harness/agent/load-agents";
import { BUILTIN_TOOL_NAMES as BUILTIN_NAMES } from "@harness/agent/tool-names";
import type { RegisteredTool, RunAvailable } from "@harness/protocol";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { pluginsOf } from "./routes-agents.ts";
import { SessionQuery, sessionOf } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { page, PaginationSchema } from "./shapes.ts";
import { mcpToolsNow } from "./mcp-tools-now.ts";
import { customToolShape } from "./routes-tools-write.ts";

const Source = z.enum(["builtin", "mcp", "skill", "custom"]);
const BUILTIN_TOOL_NAMES = new Set([...BUILTIN_NAMES, "Task"]);
const ListQuery = PaginationSchema.extend({ session_id: SessionQuery.shape.session_id, source: Source.optional() }).passthrough();

export type ToolShape = {
  id: string;
  name: string;
  description: string;
  source: z.infer<typeof Source>;
  /** The MCP server of an MCP tool. */
  source_id?: string;
  input_schema: object;
  /** Where a registered tool's calls go. */
  handler?: { type: "webhook"; url: string };
};

/** The tools a run in the session's workspace would start with, as the builtin agent makes them for
 * the model, by name: those of the agent its settings run the main thread as (their `agent`), and
 * the tools programs registered for the session (source custom), that their deny rules leave it (no
 * MCP tools: their servers would have to start). Descriptions are shown with secrets hidden as ***
 * (Task's quotes the agents' files); a registered tool's as its program gave it. */
async function wouldHave({ place, loaded, hide }: SessionSettings, sessionId: string, registered: readonly RegisteredTool[]): Promise<Map<string, ToolShape>> {
  // Imported when asked: the agent's whole tool set is more than a server needs to start.
  const { defaultTools, mainAgentOf, mainAgentTools, offered, permissionContext, registeredTool, schemaOf } = await import("@harness/agent");
  const plugins = await pluginsOf(place, loaded);
  const where = { home: place.home, projectRoot: place.projectRoot, plugins };
  const [agents, skills] = await Promise.all([loadAgentDefinitions(where), discoverSkills(where)]);
  const settings = loaded.settings;
  const all = defaultTools(
    {
      loaded: true,
      ...(settings.env !== undefined && { harnessEnv: harnessEnvOf(process.env, loaded.sources) }),
      agents: agents.agents,
      skills: skills.skills,
      sessionId,
      mcpTools: [],
      permissions: { ...(settings.sandbox?.enabled === true && { sandbox: settings.sandbox }) },
    },
    {},
  );
  // An agent the settings name that is not there: the run says so and ends; listed here, the tools without one.
  const main = mainAgentOf({}, { settings, agents: agents.agents });
  const mainAgent = main.ok ? main.agent : undefined;
  const own = new Map(registered.map((tool) => [tool.name, tool]));
  const { tools } = offered(mainAgentTools([...all, ...registered.map(registeredTool)], mainAgent, agents.agents), permissionContext(loaded, { cwd: place.cwd, home: place.home }));
  return new Map<string, ToolShape>(
    tools.map((tool): [string, ToolShape] => {
      const custom = own.get(tool.name);
      if (custom) return [tool.name, customToolShape(custom)];
      const schema = schemaOf(tool);
      return [schema.name, { id: schema.name, name: schema.name, description: hide(schema.description), source: "builtin", input_schema: schema.input_schema }];
    }),
  );
}

/** A tool the last run reported that is not the builtin agent's: an MCP server's (by the servers it
 * reported), else one of its backend's own, each known by name only. */
function reportedOnly(name: string, available: RunAvailable): ToolShape {
  const server = available.mcpServers.find((s) => name.startsWith(`mcp__${s.name}__`));
  if (server) return { id: name, name, description: "", source: "mcp", source_id: server.name, input_schema: {} };
  return { id: name, name, description: "", source: "builtin", input_schema: {} };
}

/** The tools of the session the query names, in the order the model is offered them. */
async function toolsOf(oh: OpenHarness, c: Context): Promise<ToolShape[]> {
  const settings = await sessionSettings(oh, c);
  const { session_id } = queryOf(c, SessionQuery);
  const { userId, read } = await sessionOf(oh, c, session_id);
  const available = read.state.available;
  // Claude Code's tools are its own: their descriptions and schemas are not the builtin agent's.
  const builtin = oh.backend === "builtin";
  const known = builtin ? await wouldHave(settings, session_id, oh.registeredTools.store.list(userId, session_id)) : new Map<string, ToolShape>();
  // A name the last run reported that is neither one a run would have now, an MCP server's nor a
  // built-in's was a registered tool's, unregistered (or denied) since: it is gone. Those registered
  // since come last, as the next run offers them.
  const gone = (name: string) => builtin && !known.has(name) && !name.startsWith("mcp__") && !BUILTIN_TOOL_NAMES.has(name);
  const reported = available ? available.tools.filter((name) => !gone(name)).map((name) => known.get(name) ?? reportedOnly(name, available)) : [...known.values()];
  const listed = new Set(reported.map((tool) => tool.name));
  const base = [...reported, ...[...known.values()].filter((tool) => tool.source === "custom" && !listed.has(tool.name))];
  const mcp = await mcpToolsNow(oh, c);
  if (!mcp) return base;
  // The servers asked now say what their tools are, in the last run's places; those it did not have
  // come last, and those no server has now are gone.
  const asked = new Map(mcp.map((tool) => [tool.name, tool]));
  const kept = base.flatMap((tool) => (tool.source !== "mcp" ? [tool] : asked.has(tool.name) ? [asked.get(tool.name)!] : []));
  const placed = new Set(kept.map((tool) => tool.name));
  return [...kept, ...mcp.filter((tool) => !placed.has(tool.name))];
}

export function mountToolRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/tools`,
    handle(async (c) => {
      const query = queryOf(c, ListQuery);
      const all = await toolsOf(oh, c);
      return c.json(page(all.filter((tool) => (query.source ?? tool.source) === tool.source), query));
    }),
  );
  app.get(
    `${H}/tools/:toolId`,
    handle(async (c) => {
      const id = c.req.param("toolId")!;
      const tool = (await toolsOf(oh, c)).find((t) => t.id === id);
      if (!tool) throw new ApiError(404, "tool_not_found", `no tool "${id}" for the session's runs`);
      return c.json({ tool });
    }),
  );
}
