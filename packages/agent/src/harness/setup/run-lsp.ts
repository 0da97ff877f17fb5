// The run's language servers: those its plugins declare (lsp/config.ts), kept with the
// conversation's resources, and the tools that use them (LSP, and the edit tools reporting new
// diagnostics). Nothing of it is imported for a run whose plugins declare none. The
// servers' env values that are secrets are hidden in what the run shows, as an MCP server's are.
import { configuredSecrets } from "@harness/llm/hidden-secrets";
import { canonicalToolName } from "../../permissions/tool-names.ts";
import type { Plugin, PluginDiagnostic } from "../../plugins/types.ts";
import type { LspServers } from "../../lsp/servers.ts";
import { withReadOnlyTool } from "../../subagents/builtin-agents.ts";
import type { AgentDefinition } from "../../subagents/types.ts";
import type { Tool } from "../../types.ts";
import { knowSecrets, lspServersFor, type AgentResources } from "../resources.ts";

export type RunLsp = {
  servers: LspServers;
  /** The run's built-in tools with the edit tools reporting new diagnostics, and the LSP tool. */
  tools(builtins: readonly Tool[]): Tool[];
  /** `agents` with LSP among the tools of the built-in read-only ones (Explore, Plan), unless the
   * run's list of built-in tools (RunAgentOptions.builtinTools) leaves LSP out. */
  agents(agents: AgentDefinition[], builtinTools: readonly string[] | undefined): AgentDefinition[];
};

export async function runLspServers(
  resources: AgentResources,
  where: { plugins: readonly Plugin[]; projectRoot: string; env: Record<string, string> | undefined },
  report: (diagnostics: readonly PluginDiagnostic[]) => void,
): Promise<RunLsp | undefined> {
  if (!where.plugins.some((plugin) => plugin.lspServers.length > 0)) return undefined;
  const [{ lspServersOf }, { lspServers }, { LSP_TOOL_NAME, lspTool }, { EDIT_TOOLS, withLspDiagnostics }] = await Promise.all([
    import("../../lsp/config.ts"),
    import("../../lsp/servers.ts"),
    import("../../tools/lsp/lsp-tool.ts"),
    import("../../tools/lsp/edit-diagnostics.ts"),
  ]);
  const config = lspServersOf(where.plugins);
  report(config.diagnostics);
  knowSecrets(resources, config.servers.flatMap((server) => configuredSecrets(server.env, "env")));
  if (config.servers.length === 0) return undefined;
  const env = where.env ?? (process.env as Record<string, string>);
  const key = JSON.stringify([where.projectRoot, config.servers, env]);
  const servers = lspServersFor(resources, key, () => lspServers(config.servers, { root: where.projectRoot, env }));
  if (!servers) return undefined;
  return {
    servers,
    tools: (builtins) => [...builtins.map((tool) => (EDIT_TOOLS.has(tool.name) ? withLspDiagnostics(tool, servers) : tool)), lspTool(servers)],
    agents: (agents, builtinTools) => (builtinTools === undefined || builtinTools.some((name) => canonicalToolName(name) === LSP_TOOL_NAME) ? withReadOnlyTool(agents, LSP_TOOL_NAME) : agents),
  };
}
