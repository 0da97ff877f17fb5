// The MCP servers of a sub-agent's definition (its `mcpServers`), as Claude Code has them:
// - a server it names is one the run has configured: the sub-agent gets that server's tools (the
//   run's connection), even when its `tools` list leaves them out;
// - a server it defines starts when the sub-agent does, for it alone, and closes when it ends: the
//   main agent is never offered its tools. One whose name the run's servers have already is not
//   started (as for the main thread's agent, the configured one wins).
// Its tools are named and permissioned as every MCP server's (`mcp__<server>__<tool>`); those its
// `disallowedTools` names stay out.
import type { McpConnection } from "../../mcp/connection.ts";
import { parseServerEntry, type McpServerConfig } from "../../mcp/config.ts";
import { startMcp } from "../../mcp/manager.ts";
import { mcpToolName } from "../../mcp/names.ts";
import { serverSecrets } from "../../mcp/server-secrets.ts";
import { mcpStartBlocked, type McpStartRules } from "../../mcp/start-rules.ts";
import type { AgentDefinition } from "../../subagents/types.ts";
import type { Tool } from "../../types.ts";
import type { NoticeSink } from "../resources.ts";
import { describeDiagnostic } from "../diagnostic.ts";

/** What the run's setup knows of where a sub-agent's own servers may start. */
export type SubagentMcpSetup = {
  cwd: string;
  env: Record<string, string>;
  /** Where remote servers' requests take the network variables from (RunSetup.harnessEnv); default `env`. */
  networkEnv?: Record<string, string>;
  /** The OAuth sign-in file the servers' tokens are read from (mcpOAuthFile). */
  oauthFile: string;
  rules: McpStartRules;
  /** Why no server an agent defines starts in this run, if none does. */
  refused?: string;
  /** The names of the run's servers. */
  runServers: readonly string[];
  /** The run's servers that have resources, now. */
  runResources: () => readonly McpConnection[];
  /** Learns the secrets of a server started here, which what the run shows and logs hides (resources.ts). */
  knowSecrets: (values: readonly string[]) => void;
};

export type SubagentMcp = { tools: Tool[]; close(): Promise<void> };

const NONE: SubagentMcp = { tools: [], close: async () => {} };

/** The tools `agent`'s servers give it: those of `runTools` it names, and those of the servers it
 * defines. When these have resources, their ListMcpResourcesTool and ReadMcpResourceTool read the
 * run's servers' too if `readsRunResources` (the sub-agent holds the run's pair, which these
 * replace). A server that cannot be used is said through `notice`, naming the agent; the sub-agent
 * runs without it. Never rejects. Call close() when the sub-agent has ended. */
export async function subagentMcp(
  agent: AgentDefinition,
  run: { tools: readonly Tool[]; readsRunResources: boolean },
  setup: SubagentMcpSetup | undefined,
  signal: AbortSignal,
  notice: NoticeSink,
): Promise<SubagentMcp> {
  const entries = agent.mcpServers ?? [];
  if (entries.length === 0) return NONE;
  const where = agent.file ?? "--agents";
  const denied = new Set(agent.disallowedTools ?? []);
  const named: Tool[] = [];
  for (const { name } of entries.filter((entry) => entry.config === undefined)) {
    const prefix = mcpToolName(name, "");
    const tools = run.tools.filter((tool) => tool.name.startsWith(prefix));
    if (tools.length === 0) notice("warning", `The agent ${agent.name} (${where}) names the MCP server "${name}", which this run has not connected (or which has no tools); it runs without it.`);
    named.push(...tools);
  }
  const servers = setup ? ownServers(agent, where, setup, notice) : [];
  setup?.knowSecrets(servers.flatMap(serverSecrets));
  const manager =
    servers.length > 0 && !signal.aborted && setup
      ? await startMcp(
          { servers },
          {
            cwd: setup.cwd,
            env: setup.env,
            ...(setup.networkEnv && { networkEnv: setup.networkEnv }),
            oauthFile: setup.oauthFile,
            signal,
            ...(run.readsRunResources && { resourcesBeside: setup.runResources }),
            onNotice: (level, message) => notice(level === "warn" ? "warning" : level, message),
          },
        )
      : undefined;
  return { tools: [...named, ...(manager?.tools ?? [])].filter((tool) => !denied.has(tool.name)), close: () => manager?.close() ?? Promise.resolve() };
}

/** The servers `agent` defines that may start here; each one that may not is said. */
function ownServers(agent: AgentDefinition, where: string, setup: SubagentMcpSetup, notice: NoticeSink): McpServerConfig[] {
  const defined = (agent.mcpServers ?? []).filter((entry) => entry.config !== undefined);
  if (defined.length === 0) return [];
  if (setup.refused) {
    const names = defined.map((entry) => `"${entry.name}"`).join(", ");
    notice("warning", `The MCP servers the agent ${agent.name} (${where}) defines are not started: ${setup.refused}. Left out: ${names}.`);
    return [];
  }
  // Compared as tool names have them: two names that read alike there would share their tools' names.
  const runPrefixes = new Set(setup.runServers.map((name) => mcpToolName(name, "")));
  return defined.flatMap((entry) => {
    if (runPrefixes.has(mcpToolName(entry.name, ""))) {
      notice("warning", `MCP server "${entry.name}" the agent ${agent.name} (${where}) defines is not started: this run already has a server of that name.`);
      return [];
    }
    const parsed = parseServerEntry(entry.name, entry.config, { scope: "agent", file: where, keyPrefix: `mcpServers.${entry.name}` }, setup.env);
    if (!parsed.ok) {
      notice("warning", `${describeDiagnostic(parsed.diagnostic)}; the agent ${agent.name} runs without this server.`);
      return [];
    }
    for (const warning of parsed.warnings) notice("warning", describeDiagnostic(warning));
    const blocked = mcpStartBlocked(parsed.server, setup.rules);
    if (blocked) notice("warning", `MCP server "${entry.name}" of the agent ${agent.name} (${where}) is not started: ${blocked}.`);
    return blocked ? [] : [parsed.server];
  });
}
