// Whether a configured MCP server may start on this machine: the machine's managed-mcp.json, when
// present, allows its own servers only; the settings' policy (deniedMcpServers, allowedMcpServers)
// holds for every server.
import { readConfigJson } from "../config/files.ts";
import type { McpServerConfig } from "./config.ts";
import { mcpPolicyBlocks, type McpPolicy } from "./policy.ts";

/** `managed`: whether `managedFile` (the machine's managed-mcp.json) is there, unreadable or not. */
export type McpStartRules = { policy: McpPolicy; managedFile: string; managed: boolean };

export async function mcpStartRules(policy: McpPolicy, managedFile: string): Promise<McpStartRules> {
  return { policy, managedFile, managed: (await readConfigJson(managedFile)).kind !== "missing" };
}

/** Why no server but the managed-mcp.json's own may start. */
export function managedOnlyReason(managedFile: string): string {
  return `the machine's managed MCP configuration (${managedFile}) allows its own servers only`;
}

/** Why `server` may not start, or undefined when it may. */
export function mcpStartBlocked(server: McpServerConfig, rules: McpStartRules): string | undefined {
  if (rules.managed && server.scope !== "managed") return managedOnlyReason(rules.managedFile);
  return mcpPolicyBlocks(server, rules.policy);
}
