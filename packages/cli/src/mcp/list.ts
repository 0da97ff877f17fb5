// `harness mcp list`: the MCP servers a run in this directory would have, each with its scope and
// whether it connects, checked through the agent's own MCP client with a short time limit.
import { join } from "node:path";
import { loadMcpConfig, startMcp, type McpConfig, type McpServerConfig } from "@harness/agent";
import { environmentOf } from "@harness/agent/harness-env";
import { setDebugHow } from "@harness/llm/debug-log";
import { mcpOAuthFile } from "@harness/agent/mcp-oauth";
import { isJsonObject } from "@harness/agent/json-text";
import { mcpPolicyBlocks } from "@harness/agent/mcp-policy";
import { serverSecrets } from "@harness/agent/mcp-server-secrets";
import { secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";
import type { CliIO } from "../cli.ts";
import { serversByScope, shown } from "./command.ts";
import type { McpPlace } from "./files.ts";
import { readMcpSettings, type McpSettingsRead } from "./settings.ts";

/** How long a server has to connect and list its tools, unless MCP_TIMEOUT says otherwise. */
const CHECK_TIMEOUT_MS = 5_000;
/** How many lines of a server's failure the list shows: its reason and the end of its stderr. */
const REPORT_LINES = 8;
const REPORT_LINE_CHARS = 200;

/** The servers a run in this directory would have, and the .mcp.json ones it would not start;
 * `env`: the environment a run gives them, the settings' env over the command's. */
export async function runServers(place: McpPlace, io: CliIO, warn: (message: string) => void): Promise<{ settings: McpSettingsRead; config: McpConfig; env: Record<string, string> }> {
  const settings = await readMcpSettings(place, io.cwd, warn);
  const env = environmentOf(io.env, settings.childEnvOverrides);
  const config = await loadMcpConfig({
    projectRoot: place.projectRoot,
    home: place.home,
    settings: { mcpServers: settings.servers },
    settingsFile: join(place.userDir, "settings.json"),
    approvals: settings.approvals,
    managedFile: settings.managedFile,
    env,
  });
  for (const d of config.diagnostics) warn(`${d.file}${d.key === undefined ? "" : ` (${d.key})`}: ${d.message}`);
  return { settings, config, env };
}

/** One server a run here would have (or a .mcp.json one it would not start): `result` begins with
 * ✓ (connected), ! (needs sign-in) or ✗ (failed), or says why it is not started. */
export type ServerRow = { name: string; scope: string; target: string; result: string };

/** Every server of a run in this directory, each started (with a short time limit) and checked
 * through the agent's own MCP client; `hide` hides the secrets of their commands and environment. */
export async function checkServers(place: McpPlace, io: CliIO, warn: (message: string) => void): Promise<{ rows: ServerRow[]; hide: (text: string) => string }> {
  const cwd = io.cwd;
  const { settings, config, env: serverEnv } = await runServers(place, io, warn);

  const blocked = new Map(config.servers.flatMap((server) => {
    const why = mcpPolicyBlocks(server, settings.policy);
    return why ? [[server.name, why] as const] : [];
  }));
  const started = config.servers.filter((server) => !blocked.has(server.name));
  const lines = new Map<string, string>();
  if (started.length) {
    const env = { ...serverEnv, MCP_TIMEOUT: serverEnv.MCP_TIMEOUT || String(CHECK_TIMEOUT_MS) };
    const networkEnv = environmentOf(io.env, settings.envOverrides);
    // The list has no debug log of its own; a run of /mcp in this directory starts the same servers.
    setDebugHow((category) => `harness run --debug ${category} /mcp`);
    const manager = await startMcp({ servers: started }, { cwd, env, networkEnv, oauthFile: mcpOAuthFile(place.home, io.env) });
    try {
      for (const status of manager.status()) {
        lines.set(
          status.name,
          status.state === "connected"
            ? `✓ connected, ${status.toolCount} tool${status.toolCount === 1 ? "" : "s"}`
            : status.needsSignIn
              ? `! needs sign-in: harness mcp login ${status.name}`
              : `✗ failed: ${report(status.error ?? status.state)}`,
        );
      }
    } finally {
      await manager.close();
    }
  }
  const rows: ServerRow[] = config.servers.map((server) => ({ name: server.name, scope: server.scope, target: target(server), result: lines.get(server.name) ?? `not started: ${blocked.get(server.name)}` }));
  const raw = new Map(serversByScope(place, { ...io, stderr: { write: () => true } }).filter((s) => s.scope === "project").flatMap((s) => Object.entries(s.servers)));
  for (const { name, reason } of config.disabled) {
    const entry = raw.get(name);
    const what = isJsonObject(entry) ? (typeof entry.url === "string" ? entry.url : [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].map((a) => shown(String(a))).join(" ")) : "";
    rows.push({ name, scope: "project", target: what, result: `not started: ${notStarted(reason, place)}` });
  }
  // A server's command line and stderr may carry its secrets, and those of the environment it is
  // given: they are hidden as a run's report hides them.
  const { hide } = secretHiding([...secretValuesOf(serverEnv), ...config.servers.flatMap(serverSecrets)]);
  return { rows, hide };
}

export async function listServers(place: McpPlace, io: CliIO): Promise<number> {
  const warn = (message: string) => io.stderr.write(`harness: warning: ${message}\n`);
  const { rows, hide } = await checkServers(place, io, warn);
  const out = rows.map((row) => `${row.name} (${row.scope}): ${row.target} - ${row.result}`);
  io.stdout.write(out.length ? `${hide(out.join("\n"))}\n` : "No MCP servers are configured. Add one with: harness mcp add NAME -- COMMAND [ARGS…]\n");
  return 0;
}

/** Why a .mcp.json server is not started, said shortly. */
export function notStarted(reason: string, place: McpPlace): string {
  return reason.startsWith("not approved") ? `not approved (name it in "enabledMcpjsonServers" of ${join(place.userDir, "settings.json")})` : reason;
}

function target(server: McpServerConfig): string {
  return server.type === "stdio" ? [server.command, ...server.args].map(shown).join(" ") : `${server.url} (${server.type})`;
}

/** A server's error (which may end with its stderr, indented) as the list shows it: its first
 * line on the server's row, the rest under it, each line and their number bounded. */
function report(text: string): string {
  const [first = "", ...rest] = text.trimEnd().split("\n");
  const cut = (line: string, chars: number) => (line.length > chars ? `${line.slice(0, chars - 1)}…` : line);
  const more = rest.length > REPORT_LINES - 1 ? [...rest.slice(0, REPORT_LINES - 2), "  …"] : rest;
  // The lines under the first come indented (two spaces), which their bound does not count.
  return [cut(first.trim(), REPORT_LINE_CHARS), ...more.map((line) => `  ${cut(line.trimEnd(), REPORT_LINE_CHARS + 2)}`)].join("\n");
}
