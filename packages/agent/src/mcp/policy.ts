// Claude Code's MCP server policy: `deniedMcpServers` and `allowedMcpServers` (each entry names a
// server by `serverName`, `serverCommand` or `serverUrl`), and `allowManagedMcpServersOnly`.
import { urlAllowedBy, urlDeniedBy, urlPatternRegExp } from "../glob-regexp.ts";
import type { McpRunServerConfig } from "./config.ts";

export type McpPolicyEntry = { serverName: string } | { serverCommand: string[] } | { serverUrl: string };

export type McpPolicy = {
  denied: McpPolicyEntry[];
  /** Undefined: no allowlist. Empty: no server may run. */
  allowed?: McpPolicyEntry[];
};

/** The settings scopes the policy reads, highest precedence last. */
export type McpPolicySource = { path: string; managed: boolean; trusted: boolean; settings: Record<string, unknown> };

/** The policy of the settings. Denials count from every file (they only take away); allowlists
 * from the user's and managed settings (a repository's files could otherwise widen them), and only
 * the managed ones with `allowManagedMcpServersOnly: true` there. */
export function mcpPolicyOf(sources: readonly McpPolicySource[], warn: (message: string) => void): McpPolicy {
  const entries = (source: McpPolicySource, key: "deniedMcpServers" | "allowedMcpServers"): McpPolicyEntry[] | undefined => {
    const raw = source.settings[key];
    if (raw === undefined) return undefined;
    if (!Array.isArray(raw)) {
      warn(`${source.path} (${key}): must be a list of {"serverName"}, {"serverCommand"} or {"serverUrl"} entries; it is left out`);
      return [];
    }
    return raw.flatMap((entry, i) => {
      const parsed = parseMcpPolicyEntry(entry);
      if (typeof parsed === "string") warn(`${source.path} (${key}[${i}]): ${parsed}; the entry is left out`);
      return typeof parsed === "string" ? [] : [parsed];
    });
  };
  const denied = sources.flatMap((source) => entries(source, "deniedMcpServers") ?? []);
  const managedOnly = sources.some((source) => source.managed && source.settings.allowManagedMcpServersOnly === true);
  let allowed: McpPolicyEntry[] | undefined;
  for (const source of sources) {
    if (!source.trusted || (managedOnly && !source.managed)) continue;
    const list = entries(source, "allowedMcpServers");
    if (list) allowed = [...(allowed ?? []), ...list];
  }
  if (managedOnly && allowed === undefined) allowed = [];
  return allowed === undefined ? { denied } : { denied, allowed };
}

/** Why the policy keeps `server` from running, or undefined when it may run. A stdio server is
 * matched by command when the allowlist names commands, a remote one by URL when it names URLs,
 * and otherwise by name; a program's own (sdk) server, which has neither, by name only. */
export function mcpPolicyBlocks(server: McpRunServerConfig, policy: McpPolicy): string | undefined {
  if (policy.denied.some((entry) => matches(server, entry, urlDeniedBy))) return "it is listed in deniedMcpServers";
  if (!policy.allowed) return undefined;
  const kind = server.type === "stdio" ? "serverCommand" : server.type === "sdk" ? "serverName" : "serverUrl";
  const byKind = kind === "serverName" ? [] : policy.allowed.filter((entry) => kind in entry);
  const candidates = byKind.length > 0 ? byKind : policy.allowed.filter((entry) => "serverName" in entry);
  if (candidates.some((entry) => matches(server, entry, urlAllowedBy))) return undefined;
  return `allowedMcpServers does not list its ${byKind.length > 0 ? (kind === "serverCommand" ? "command" : "URL") : "name"}`;
}

/** Whether `entry` names `server`; a URL pattern is read by `byUrl`, as an allowlist's entry lets a
 * URL through or a denylist's stops it. */
function matches(server: McpRunServerConfig, entry: McpPolicyEntry, byUrl: (pattern: RegExp, url: string) => boolean): boolean {
  if ("serverName" in entry) return entry.serverName === server.name;
  if ("serverCommand" in entry) {
    if (server.type !== "stdio") return false;
    const command = [server.command, ...server.args];
    return command.length === entry.serverCommand.length && command.every((part, i) => part === entry.serverCommand[i]);
  }
  return (server.type === "http" || server.type === "sse") && byUrl(urlPatternRegExp(entry.serverUrl), server.url);
}

/** `entry` of deniedMcpServers or allowedMcpServers, or why it is not one. */
export function parseMcpPolicyEntry(entry: unknown): McpPolicyEntry | string {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return 'must be an object with "serverName", "serverCommand" or "serverUrl"';
  const keys = ["serverName", "serverCommand", "serverUrl"].filter((key) => key in entry);
  if (keys.length !== 1) return 'must have exactly one of "serverName", "serverCommand" and "serverUrl"';
  const { serverName, serverCommand, serverUrl } = entry as Record<string, unknown>;
  if (keys[0] === "serverName") return typeof serverName === "string" && serverName !== "" ? { serverName } : '"serverName" must be a non-empty string';
  if (keys[0] === "serverUrl") return typeof serverUrl === "string" && serverUrl !== "" ? { serverUrl } : '"serverUrl" must be a non-empty string';
  const valid = Array.isArray(serverCommand) && serverCommand.length > 0 && serverCommand.every((part) => typeof part === "string");
  return valid ? { serverCommand: serverCommand as string[] } : '"serverCommand" must be a non-empty list of strings (the command, then its arguments)';
}
