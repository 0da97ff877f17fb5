// The MCP servers of a session as its settings configure them now (as a run would load them: the
// user's and managed configuration, the project's .mcp.json, enabled plugins), each with its status:
// as the last run reported it when that run started it, else why a run would not start it (pending
// approval, disabled, disabled by policy), else pending (the next run starts it). Started servers
// (mcp-probe.ts) fill in what they offer.
import type { Context } from "hono";
import { isJsonObject } from "@harness/agent/json-text";
import { mcpPolicyBlocks } from "@harness/agent/mcp-policy";
import type { McpProbedServer, RunAvailable } from "@harness/protocol";
import type { OpenHarness } from "./common.ts";
import { configOf, transportOf, type McpSetup, type Transport } from "./mcp-config.ts";
import { readWorkspaceText } from "./settings-edit.ts";
import { pluginsOf } from "./routes-agents.ts";
import { sessionOf } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";

export type McpServerShape = {
  id: string;
  name: string;
  transport: Transport;
  status: "connected" | "disconnected" | "error";
  /** connected, failed (as the last run or a probe found it), needs-auth, pending (the next run
   * starts it), pending approval, disabled (the user's disabledMcpjsonServers), disabled by policy. */
  harness_status: string;
  tools: { name: string; description: string; input_schema: object }[];
  resources: { uri: string; name: string; mime_type?: string }[];
  prompts: { name: string; description: string; arguments?: { name: string; description: string; required: boolean }[] }[];
  /** Why a run does not start it, or why it failed. */
  warning?: string;
};

/** Statuses of servers a run does not start: no probe asks them. */
export const NOT_STARTED = new Set(["pending approval", "disabled", "disabled by policy"]);

function statusOf(harnessStatus: string): McpServerShape["status"] {
  if (harnessStatus === "connected") return "connected";
  return harnessStatus === "failed" ? "error" : "disconnected";
}

/** The entries of the project's .mcp.json as they are written (none when it cannot be read: not
 * JSON, too large, not a file, out of the workspace), read as the write routes read it. */
async function projectEntries(settings: SessionSettings, setup: McpSetup): Promise<Record<string, unknown>> {
  try {
    const text = await readWorkspaceText(settings.place.cwd, setup.file());
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    return isJsonObject(value) && isJsonObject(value.mcpServers) ? value.mcpServers : {};
  } catch {
    return {};
  }
}

/** The session's servers now (the session the query names), with its settings. */
export async function serversNow(oh: OpenHarness, c: Context): Promise<{ settings: SessionSettings; servers: McpServerShape[] }> {
  const settings = await sessionSettings(oh, c);
  const { read } = await sessionOf(oh, c, settings.sessionId);
  const setup = await configOf(oh, settings, await pluginsOf(settings.place, settings.loaded));
  const available = read.state.available;
  const shape = (name: string, transport: Transport, harnessStatus: string, warning?: string): McpServerShape => ({
    id: name,
    name,
    transport,
    status: statusOf(harnessStatus),
    harness_status: harnessStatus,
    tools: harnessStatus === "connected" && available ? toolNames(name, available) : [],
    resources: [],
    prompts: [],
    ...(warning && { warning: settings.hide(warning) }),
  });
  const started = setup.config.servers.map((server) => {
    const transport = transportOf(server as unknown as Record<string, unknown>, settings.hide);
    const blocked = mcpPolicyBlocks(server, setup.policy);
    if (blocked) return shape(server.name, transport, "disabled by policy", `the settings' MCP policy keeps it from running: ${blocked}`);
    const ran = available?.mcpServers.find((s) => s.name === server.name);
    return shape(server.name, transport, ran?.status ?? "pending");
  });
  const entries = await projectEntries(settings, setup);
  const notStarted = setup.config.disabled.map(({ name, reason }) => {
    const entry = entries[name];
    const transport = transportOf(isJsonObject(entry) ? entry : {}, settings.hide);
    return shape(name, transport, reason.startsWith("not approved") ? "pending approval" : "disabled", `the next run does not start it: ${reason}`);
  });
  return { settings, servers: [...started, ...notStarted] };
}

/** The tools the last run had of server `name`, by name only. */
function toolNames(name: string, available: RunAvailable): McpServerShape["tools"] {
  const prefix = `mcp__${name}__`;
  return available.tools.filter((tool) => tool.startsWith(prefix)).map((tool) => ({ name: tool.slice(prefix.length), description: "", input_schema: {} }));
}

/** `server` as a probe found it: what it offers, its status now (its texts through `hide`). */
export function probedShape(server: McpServerShape, probed: McpProbedServer, hide: (text: string) => string): McpServerShape {
  const harnessStatus = probed.state === "blocked" ? "disabled by policy" : probed.state;
  const { warning: _before, ...rest } = server;
  return {
    ...rest,
    status: statusOf(harnessStatus),
    harness_status: harnessStatus,
    tools: probed.tools.map((tool) => ({ name: tool.name, description: hide(tool.description), input_schema: tool.inputSchema })),
    resources: probed.resources.map((resource) => ({ uri: resource.uri, name: resource.name, ...(resource.mimeType !== undefined && { mime_type: resource.mimeType }) })),
    prompts: probed.prompts.map((prompt) => ({
      name: prompt.name,
      description: hide(prompt.description),
      arguments: prompt.arguments.map((arg) => ({ ...arg, description: hide(arg.description) })),
    })),
    ...(probed.error !== undefined && { warning: hide(probed.error) }),
  };
}
