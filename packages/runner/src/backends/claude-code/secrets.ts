// The secrets a Claude Code run knows by value, which what the backend shows of Claude Code's own
// words (its stderr, a failed MCP server's error, a hook's message, a result's error text, a rewind's error) hides
// by the one rule (hidden-secrets.ts): its environment's by name, the env of the settings files it
// reads (the managed ones always), the configured values of the MCP servers it may start
// (server-secrets.ts) and its http hooks' header values (hook-secrets.ts).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SettingSource } from "@anthropic-ai/claude-agent-sdk";
import { secretValuesOf } from "@harness/llm/hidden-secrets";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "@harness/agent/managed-settings-path";
import { httpHookSecrets } from "@harness/agent/hook-secrets";
import { loadMcpConfig } from "@harness/agent/mcp-load-config";
import { serverSecrets } from "@harness/agent/mcp-server-secrets";

export type ClaudeCodeSecretsInput = {
  /** Claude Code's whole environment (claudeCodeEnv). */
  env: Record<string, string>;
  /** The runner's: its secrets by name may reach Claude Code's words through a file or a command. */
  runnerEnv: Record<string, string | undefined>;
  settingSources: readonly SettingSource[];
  /** Claude Code's CLAUDE_CONFIG_DIR (the user's settings.json and .claude.json) and HOME. */
  configDir: string;
  home: string;
  /** Where it runs: its project's `.claude/` and `.mcp.json`. */
  cwd: string;
  /** The machine's managed settings, which Claude Code reads whatever the sources. Default: the
   * agent's (DEFAULT_MANAGED_SETTINGS_PATH). */
  managedSettingsPath?: string;
};

/** The secrets of the run, by value. Files that are missing or cannot be read add none (Claude Code
 * says what is wrong with them); a server not approved counts too, as knowing more only hides more. */
export async function claudeCodeSecrets(input: ClaudeCodeSecretsInput): Promise<string[]> {
  const files = input.settingSources.map((source) =>
    source === "user" ? join(input.configDir, "settings.json") : join(input.cwd, ".claude", source === "project" ? "settings.json" : "settings.local.json"),
  );
  files.push(input.managedSettingsPath ?? DEFAULT_MANAGED_SETTINGS_PATH);
  const settings = await Promise.all(files.map(readObject));
  const settingsEnv: Record<string, string> = {};
  const mcpServers: Record<string, unknown> = {};
  const hookSecrets = settings.flatMap((file) => httpHookSecrets(file.hooks));
  for (const file of settings) {
    for (const [name, value] of Object.entries(asObject(file.env))) if (typeof value === "string") settingsEnv[name] = value;
    Object.assign(mcpServers, asObject(file.mcpServers));
  }
  const config = await loadMcpConfig({
    projectRoot: input.cwd,
    home: input.home,
    userFile: join(input.configDir, ".claude.json"),
    settings: { mcpServers },
    requireProjectApproval: false,
    env: { ...input.env, ...settingsEnv },
  });
  return [...secretValuesOf(input.env), ...secretValuesOf(input.runnerEnv), ...secretValuesOf(settingsEnv), ...config.servers.flatMap(serverSecrets), ...hookSecrets];
}

async function readObject(file: string): Promise<Record<string, unknown>> {
  try {
    return asObject(JSON.parse(await readFile(file, "utf8")));
  } catch {
    return {};
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
