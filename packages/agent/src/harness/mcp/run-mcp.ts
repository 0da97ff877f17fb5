// The run's MCP servers as the setup finds them: which settings' servers and approvals count, and
// starting those that may start (shared across runs through the agent's resources).
import { fetchKeyOf } from "@harness/llm/http-fetch";
import { mcpOAuthFile } from "../../mcp/oauth-store.ts";
import type { McpRunServerConfig } from "../../mcp/config.ts";
import { serverSecrets } from "../../mcp/server-secrets.ts";
import { loadMcpConfig } from "../../mcp/load-config.ts";
import type { McpManager } from "../../mcp/manager.ts";
import { mcpPolicyBlocks } from "../../mcp/policy.ts";
import { managedOnlyReason, mcpStartBlocked, type McpStartRules } from "../../mcp/start-rules.ts";
import type { Plugin } from "../../plugins/types.ts";
import { comesWithRepository, type Settings, type SettingsSource } from "../../settings/types.ts";
import type { RunAgentOptions } from "../../types.ts";
import { untilAborted } from "../abortable.ts";
import type { RunInventory } from "../setup/run-inventory.ts";
import { describeDiagnostic } from "../diagnostic.ts";
import { knowSecrets, mcpManagerFor, resourceInternals, type AgentResources, type NoticeLevel, type NoticeSink } from "../resources.ts";

export type McpWhere = {
  projectRoot: string;
  home: string;
  settings: Settings;
  approvals: McpApprovals;
  /** The run's host's approvals (RunAgentOptions.mcpApprovals). */
  granted?: RunAgentOptions["mcpApprovals"];
  rules: McpStartRules;
  plugins: readonly Plugin[];
  env: Record<string, string>;
  /** Where remote servers' requests take the network variables from (RunSetup.harnessEnv); default `env`. */
  networkEnv?: Record<string, string>;
  signal: AbortSignal;
  /** The run's own servers and whether they are the only ones (RunAgentOptions.mcpConfig). */
  given?: RunAgentOptions["mcpConfig"];
  strict?: boolean;
  sdk?: RunAgentOptions["sdkMcpServers"];
  agent?: { file: string; servers: Record<string, unknown> };
  /** Gets where each server is configured, and those not started with why (for /mcp). */
  inventory?: Pick<RunInventory, "mcpConfigured" | "mcpNotStarted">;
};
type McpApprovals = Pick<Settings, "enabledMcpjsonServers" | "enableAllProjectMcpServers">;

/** The MCP servers the settings define: the user's and managed settings'. A project's settings
 * files come with the repository: servers there would start unasked, so they are left out, saying
 * where a project's servers go (`.mcp.json`, where they start once approved). */
export function trustedServers(sources: readonly SettingsSource[], notice: NoticeSink): Settings["mcpServers"] {
  let servers: Settings["mcpServers"];
  for (const source of sources) {
    if (source.settings.mcpServers === undefined) continue;
    if (!comesWithRepository(source.scope)) servers = { ...servers, ...source.settings.mcpServers };
    else notice("warning", `${source.path} (mcpServers): a project's settings files cannot define MCP servers, which would start unasked; put them in the project's .mcp.json, where they start once approved.`);
  }
  return servers;
}

/** The approvals of `.mcp.json` servers that count: those of the user's and managed settings. A
 * project's own files (settings.json, settings.local.json) come with the repository, as its
 * `.mcp.json` does, and cannot approve what it would run. */
export function approvalsOf(sources: readonly SettingsSource[]): McpApprovals {
  const trusted = sources.filter((source) => !comesWithRepository(source.scope));
  return {
    enabledMcpjsonServers: trusted.flatMap((source) => source.settings.enabledMcpjsonServers ?? []),
    enableAllProjectMcpServers: trusted.some((source) => source.settings.enableAllProjectMcpServers === true),
  };
}

/** Why a sub-agent's definition's own servers start in no sub-agent of this run, if they do not. */
export function subagentMcpRefusal(options: RunAgentOptions, rules: McpStartRules): { refused?: string } {
  if (options.tools !== undefined) return { refused: "the run was given its complete tool set (tools), which holds no MCP server's tools" };
  if (options.strictMcpConfig) return { refused: "the run uses only its --mcp-config servers (--strict-mcp-config)" };
  return rules.managed ? { refused: managedOnlyReason(rules.managedFile) } : {};
}

export async function mcpFor(resources: AgentResources, o: McpWhere, notice: NoticeSink): Promise<Pick<McpManager, "tools" | "prompts" | "resourceServers" | "resourceConnections" | "status" | "connections"> | undefined> {
  const config = await loadMcpConfig({
    projectRoot: o.projectRoot,
    home: o.home,
    settings: o.settings,
    approvals: o.approvals,
    ...(o.granted && { granted: o.granted }),
    plugins: o.plugins,
    managedFile: o.rules.managedFile,
    env: o.env,
    ...(o.given && { given: o.given }),
    ...(o.strict && { strict: true }),
    ...(o.agent && { agent: o.agent }),
  });
  // Their command lines and stderr are in what the run shows (a failure's notice, /mcp).
  knowSecrets(resources, config.servers.flatMap(serverSecrets));
  for (const d of config.diagnostics) notice("warning", describeDiagnostic(d));
  const listed = o.inventory;
  const projectMcp = `${o.projectRoot}/.mcp.json`;
  for (const { name, reason } of config.disabled) {
    listed?.mcpNotStarted.push({ name, scope: "project", file: projectMcp, ...(reason.startsWith("not approved") ? { state: "pending approval", reason: reason.replace(/^not approved: /, "") } : { state: "disabled", reason }) });
    if (reason.startsWith("not approved")) notice("warning", `MCP server "${name}" of ${o.projectRoot}/.mcp.json is not started: ${reason}.`);
  }
  const sdkNames = new Set(o.sdk?.names ?? []);
  const servers: McpRunServerConfig[] = config.servers.filter((server) => {
    if (sdkNames.has(server.name)) return false;
    const blocked = mcpStartBlocked(server, o.rules);
    if (blocked) listed?.mcpNotStarted.push({ name: server.name, scope: server.scope, file: server.file, state: "blocked", reason: blocked });
    else if (listed) listed.mcpConfigured[server.name] = { scope: server.scope, file: server.file };
    if (blocked) notice("warning", `MCP server "${server.name}" of ${server.file} is not started: ${blocked}.`);
    return !blocked;
  });
  // The program's own servers are held to the settings' policy by name, as every server is; the
  // machine's managed-mcp.json governs the servers harness starts, not those the program serves.
  for (const name of sdkNames) {
    const server = { type: "sdk", name, scope: "flag", file: "the program's own servers" } as const;
    const blocked = mcpPolicyBlocks(server, o.rules.policy);
    if (blocked) listed?.mcpNotStarted.push({ name, scope: server.scope, file: server.file, state: "blocked", reason: blocked });
    else if (listed) listed.mcpConfigured[name] = { scope: server.scope, file: server.file };
    if (blocked) notice("warning", `MCP server "${name}" of ${server.file} is not started: ${blocked}.`);
    else servers.push(server);
  }
  if (servers.length === 0 || resourceInternals(resources).disposed) return undefined;
  // The network settings may change with the settings' env the same (moved from a project's file to the user's).
  const key = JSON.stringify([o.projectRoot, servers, o.settings.env ?? {}, o.networkEnv && fetchKeyOf(o.networkEnv)]);
  // Imported once there is a server to start: a run without MCP servers starts sooner without it.
  const { startMcp } = await import("../../mcp/manager.ts");
  const manager = await untilAborted(
    mcpManagerFor(resources, key, (onNotice, signal) =>
      startMcp({ servers }, { cwd: o.projectRoot, env: o.env, ...(o.networkEnv && { networkEnv: o.networkEnv }), oauthFile: mcpOAuthFile(o.home), signal, ...(o.sdk && { relay: o.sdk.relay }), onNotice: (level, message) => onNotice(level === "warn" ? "warning" : (level as NoticeLevel), message) }),
    ),
    o.signal,
  );
  return manager && { tools: manager.tools, prompts: manager.prompts, resourceServers: manager.resourceServers, resourceConnections: () => manager.resourceConnections(), status: () => manager.status(), connections: () => manager.connections() };
}
