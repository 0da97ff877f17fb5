// The MCP servers of a sub-agent's definition (its `mcpServers`), as Claude Code has them:
// - a server it names is one the run has configured: the sub-agent gets that server's tools (the
//   run's connection), even when its `tools` list leaves them out;
// - a server it defines starts when the sub-agent does, for it alone, and closes when it ends: the
//   main agent is never offered its tools.
// Its tools are named and permissioned as every MCP server's (`mcp__<server>__<tool>`); those its
// `disallowedTools` names stay out.
import { readConfigJson } from "../config-files.ts";
import { parseServerEntry, type McpServerConfig } from "../mcp/config.ts";
import { startMcp } from "../mcp/manager.ts";
import { mcpToolName } from "../mcp/names.ts";
import { mcpPolicyBlocks, type McpPolicy } from "../mcp/policy.ts";
import type { AgentDefinition } from "../subagents/types.ts";
import type { Tool } from "../types.ts";
import type { NoticeSink } from "./resources.ts";
import { describeDiagnostic } from "./setup.ts";

/** What the run's setup knows of where a sub-agent's own servers may start. `strict`: the run uses
 * only its --mcp-config servers; `managedFile`: the machine's managed-mcp.json, which when present
 * allows its own servers only. */
export type SubagentMcpSetup = { cwd: string; env: Record<string, string>; policy: McpPolicy; strict: boolean; managedFile: string };

export type SubagentMcp = { tools: Tool[]; close(): Promise<void> };

const NONE: SubagentMcp = { tools: [], close: async () => {} };

/** The tools `agent`'s servers give it, besides those of `runTools` it has already. A server that
 * cannot be used is said through `notice`, naming the agent; the sub-agent runs without it. Never
 * rejects. Call close() when the sub-agent has ended. */
export async function subagentMcp(agent: AgentDefinition, runTools: readonly Tool[], setup: SubagentMcpSetup | undefined, signal: AbortSignal, notice: NoticeSink): Promise<SubagentMcp> {
  const entries = agent.mcpServers ?? [];
  if (entries.length === 0) return NONE;
  const where = agent.file ?? "--agents";
  const denied = new Set(agent.disallowedTools ?? []);
  const named: Tool[] = [];
  for (const { name } of entries.filter((entry) => entry.config === undefined)) {
    const prefix = mcpToolName(name, "");
    const tools = runTools.filter((tool) => tool.name.startsWith(prefix));
    if (tools.length === 0) notice("warning", `The agent ${agent.name} (${where}) names the MCP server "${name}", which this run has not connected (or which has no tools); it runs without it.`);
    named.push(...tools);
  }
  const servers = setup ? await ownServers(agent, where, setup, notice) : [];
  const manager = servers.length > 0 && !signal.aborted && setup ? await startMcp({ servers }, { cwd: setup.cwd, env: setup.env, signal, onNotice: (level, message) => notice(level === "warn" ? "warning" : level, message) }) : undefined;
  const taken = new Set(named.map((tool) => tool.name));
  const own = (manager?.tools ?? []).filter((tool) => !taken.has(tool.name));
  return { tools: [...named, ...own].filter((tool) => !denied.has(tool.name)), close: () => manager?.close() ?? Promise.resolve() };
}

/** The servers `agent` defines that may start here; each one that may not is said. */
async function ownServers(agent: AgentDefinition, where: string, setup: SubagentMcpSetup, notice: NoticeSink): Promise<McpServerConfig[]> {
  const defined = (agent.mcpServers ?? []).filter((entry) => entry.config !== undefined);
  if (defined.length === 0) return [];
  const names = defined.map((entry) => `"${entry.name}"`).join(", ");
  if (setup.strict) {
    notice("warning", `The MCP servers the agent ${agent.name} (${where}) defines are not started: the run uses only its --mcp-config servers (--strict-mcp-config). Left out: ${names}.`);
    return [];
  }
  if ((await readConfigJson(setup.managedFile)).kind !== "missing") {
    notice("warning", `The MCP servers the agent ${agent.name} (${where}) defines are not started: the machine's managed MCP configuration (${setup.managedFile}) allows its own servers only. Left out: ${names}.`);
    return [];
  }
  return defined.flatMap((entry) => {
    const parsed = parseServerEntry(entry.name, entry.config, { scope: "agent", file: where, keyPrefix: `mcpServers.${entry.name}` }, setup.env);
    if (!parsed.ok) {
      notice("warning", `${describeDiagnostic(parsed.diagnostic)}; the agent ${agent.name} runs without this server.`);
      return [];
    }
    for (const warning of parsed.warnings) notice("warning", describeDiagnostic(warning));
    const blocked = mcpPolicyBlocks(parsed.server, setup.policy);
    if (blocked) notice("warning", `MCP server "${entry.name}" of the agent ${agent.name} (${where}) is not started: ${blocked}.`);
    return blocked ? [] : [parsed.server];
  });
}
