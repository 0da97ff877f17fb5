// The MCP configuration of a session's runs as the Open Harness routes read it: what the runs make of
// its files now (the same loader, the user's and managed settings' servers and approvals, and those
// of the session's API caller), and the settings' MCP policy.
import path from "node:path";
import { isJsonObject } from "@harness/agent/json-text";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "@harness/agent/managed-settings-path";
import { loadMcpConfig } from "@harness/agent/mcp-load-config";
import { mcpPolicyOf } from "@harness/agent/mcp-policy";
import type { OpenHarness } from "./common.ts";
import type { SessionSettings } from "./session-settings.ts";
import { inWorkspace } from "./settings-edit.ts";

/** The session's approvals that its runs count: the builtin agent's (Claude Code reads its own). */
export function grantsOf(oh: OpenHarness, settings: Pick<SessionSettings, "userId" | "sessionId">) {
  return oh.backend === "builtin" ? oh.mcpApprovals.list(settings.userId, settings.sessionId) : [];
}

/** What the runs make of the session's MCP configuration now, with the paths the API writes;
 * with `plugins`, the enabled plugins' servers too. */
export async function configOf(oh: OpenHarness, settings: SessionSettings, plugins: Parameters<typeof loadMcpConfig>[0]["plugins"] = []) {
  const { place, loaded } = settings;
  const trusted = loaded.sources.filter((source) => source.scope === "user" || source.scope === "managed");
  const env = { ...process.env, ...loaded.settings.env };
  const managedFile = path.join(path.dirname(DEFAULT_MANAGED_SETTINGS_PATH), "managed-mcp.json");
  const config = await loadMcpConfig({
    projectRoot: place.projectRoot,
    home: place.home,
    settings: { mcpServers: trusted.reduce<Record<string, unknown> | undefined>((all, source) => (isJsonObject(source.settings.mcpServers) ? { ...all, ...source.settings.mcpServers } : all), undefined) },
    approvals: {
      enabledMcpjsonServers: trusted.flatMap((source) => source.settings.enabledMcpjsonServers ?? []),
      enableAllProjectMcpServers: trusted.some((source) => source.settings.enableAllProjectMcpServers === true),
    },
    granted: grantsOf(oh, settings),
    plugins,
    managedFile,
    env,
  });
  const policy = mcpPolicyOf(
    loaded.sources.map((source) => ({ path: source.path, managed: source.scope === "managed", trusted: trusted.includes(source), settings: source.settings as Record<string, unknown> })),
    () => {},
  );
  const mcpJson = path.join(place.projectRoot, ".mcp.json");
  return { config, policy, env, managedFile, mcpJson, file: () => inWorkspace(place.cwd, mcpJson, `the project's ${mcpJson}`, place.home) };
}

export type McpSetup = Awaited<ReturnType<typeof configOf>>;

export type Transport = { type: "stdio"; command: string; args?: string[] } | { type: "http" | "sse"; url: string };

/** The spec's transport of an entry (`env` and `headers` left out: they may hold secrets; the rest
 * shown through the logs' secret-hiding rule). */
export function transportOf(entry: Record<string, unknown>, hide: (text: string) => string): Transport {
  if (entry.type === "http" || entry.type === "sse") return { type: entry.type, url: hide(String(entry.url)) };
  return { type: "stdio", command: hide(String(entry.command)), ...(Array.isArray(entry.args) && { args: entry.args.map((arg) => hide(String(arg))) }) };
}
