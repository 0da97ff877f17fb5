// What the settings say about MCP servers, read as a run reads them: servers and approvals from
// the user's and managed settings only (a repository's own files can neither add a server nor
// approve its .mcp.json), the policy (deniedMcpServers, allowedMcpServers) from every file, the
// env a run's requests to remote servers take (their proxy and CA from the user's and managed
// settings only), and the env its stdio servers start in.
import { join } from "node:path";
import { DEFAULT_MANAGED_SETTINGS_PATH, loadSettings, type McpSettings } from "@harness/agent";
import { harnessEnvOverrides } from "@harness/agent/harness-env";
import { isJsonObject } from "@harness/agent/json-text";
import { mcpPolicyOf, type McpPolicy } from "@harness/agent/mcp-policy";
import type { McpPlace } from "./files.ts";

export type McpSettingsRead = {
  policy: McpPolicy;
  servers: McpSettings["mcpServers"];
  approvals: Pick<McpSettings, "enabledMcpjsonServers" | "enableAllProjectMcpServers">;
  /** The machine's managed-mcp.json, beside its managed settings. */
  managedFile: string;
  /** The settings' env as the harness takes it for its own requests (harness-env.ts), to lay over
   * the command's environment. */
  envOverrides: Record<string, string>;
  /** The settings' env as the commands a run starts take it (setup.ts's childEnv), MCP servers
   * among them: every file's, to lay over the command's environment. */
  childEnvOverrides: Record<string, string>;
};

export async function readMcpSettings(place: McpPlace, cwd: string, warn: (message: string) => void): Promise<McpSettingsRead> {
  const loaded = await loadSettings({ cwd, projectRoot: place.projectRoot, home: place.home, managedPath: DEFAULT_MANAGED_SETTINGS_PATH });
  for (const d of loaded.diagnostics) warn(`${d.file}${d.key === undefined ? "" : ` (${d.key})`}: ${d.message}`);
  const trusted = loaded.sources.filter((source) => source.scope === "user" || source.scope === "managed");
  const policy = mcpPolicyOf(
    loaded.sources.map((source) => ({ path: source.path, managed: source.scope === "managed", trusted: trusted.includes(source), settings: source.settings as Record<string, unknown> })),
    warn,
  );
  return {
    policy,
    servers: trusted.reduce<Record<string, unknown> | undefined>((all, source) => (isJsonObject(source.settings.mcpServers) ? { ...all, ...source.settings.mcpServers } : all), undefined),
    approvals: {
      enabledMcpjsonServers: trusted.flatMap((source) => source.settings.enabledMcpjsonServers ?? []),
      enableAllProjectMcpServers: trusted.some((source) => source.settings.enableAllProjectMcpServers === true),
    },
    managedFile: join(DEFAULT_MANAGED_SETTINGS_PATH, "..", "managed-mcp.json"),
    envOverrides: harnessEnvOverrides(loaded.sources),
    childEnvOverrides: loaded.settings.env ?? {},
  };
}
