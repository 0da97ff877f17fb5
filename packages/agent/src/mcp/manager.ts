// Starts every configured MCP server and exposes their tools as ours.
import { wholeSetting } from "../env/number.ts";
import type { Tool } from "../types.ts";
import type { Env, McpRunServerConfig } from "./config.ts";
import type { McpConnection } from "./connection.ts";
import { mcpTool } from "./mcp-tool.ts";
import { MAX_TOOL_NAME_LENGTH, mcpToolName } from "./names.ts";
import { promptCommands, type McpPromptCommand } from "./prompts.ts";
import { hasResources, resourceTools } from "./resources.ts";
import type { McpRelay } from "./sdk-transport.ts";

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** Claude Code's default limit on what one MCP tool call puts in the conversation
 * (MAX_MCP_OUTPUT_TOKENS); a token is taken as four characters. */
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000;
/** Claude Code's default limit for one MCP tool call (MCP_TOOL_TIMEOUT), about 27.8 hours. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 100_000_000;

export type McpNoticeLevel = "info" | "warn" | "error";

export type StartMcpOptions = {
  /** Working directory of stdio servers (and their CLAUDE_PROJECT_DIR). */
  cwd: string;
  /** When it fires, pending connections are abandoned and the manager closes as by close(). */
  signal?: AbortSignal;
  /** Reports connections, servers that fail to start or die later, and skipped tools. */
  onNotice?: (level: McpNoticeLevel, message: string) => void;
  /** Base environment of stdio servers and source of MCP_TIMEOUT / MCP_TOOL_TIMEOUT /
   * MAX_MCP_OUTPUT_TOKENS; default process.env. */
  env?: Env;
  /** The network variables of remote servers' requests and their sign-ins' (ConnectOptions.networkEnv). */
  networkEnv?: Env;
  /** How the servers of type "sdk" (the program's own) are reached. */
  relay?: McpRelay;
  /** The OAuth sign-in file (mcpOAuthFile): remote servers use the sign-ins stored there, and one
   * that needs a sign-in is reported with the command that makes it. */
  oauthFile?: string;
  /** Connections of another manager that this one's resource tools read as well, before its own
   * (a sub-agent's servers beside the run's): asked at each call. */
  resourcesBeside?: () => readonly McpConnection[];
};

export type McpServerStatus = {
  name: string;
  state: "connected" | "failed" | "closed";
  error?: string;
  /** Failed for want of an OAuth sign-in: `harness mcp login <name>` makes it. */
  needsSignIn?: boolean;
  /** Tools of this server among `McpManager.tools`. */
  toolCount: number;
};

export type McpManager = {
  /** Every tool of every server that connected, named `mcp__<server>__<tool>`. A server that
   * says its tools changed (notifications/tools/list_changed) is listed anew, and the new list
   * is what this holds from then on: a run takes the tools once, at its start. A server that
   * dies keeps its tools listed, and calling them returns an is_error result. When a server has
   * resources, ListMcpResourcesTool and ReadMcpResourceTool come last. */
  readonly tools: Tool[];
  /** The connected servers' prompts, as slash commands named `mcp__<server>__<prompt>`. */
  readonly prompts: McpPromptCommand[];
  /** The names of the connected servers that have resources. */
  readonly resourceServers: string[];
  /** The connected servers that have resources, now (for another manager's resourcesBeside). */
  resourceConnections(): McpConnection[];
  status(): McpServerStatus[];
  /** Every server's connection, connected or not, in the configuration's order. */
  connections(): readonly McpConnection[];
  /** Ends every session and stops every stdio server process. Idempotent. */
  close(): Promise<void>;
};

/** Connects to all servers concurrently, each within MCP_TIMEOUT ms (default 30000). Never
 * rejects: a server that cannot be reached is reported through onNotice("error", …) and shows as
 * "failed" in status(); the others are used. */
export async function startMcp(config: { servers: readonly McpRunServerConfig[] }, options: StartMcpOptions): Promise<McpManager> {
  const env = options.env ?? process.env;
  const notice = options.onNotice ?? (() => {});
  // Aborted by the caller's signal or by close(): abandons pending connections and requests.
  const lifetime = new AbortController();
  let close: () => Promise<void> = async () => {};
  const onOuterAbort = () => {
    lifetime.abort();
    void close();
  };
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  if (options.signal?.aborted) lifetime.abort();

  // Read as env/settings.ts checks them at start: a value it would refuse leaves the default here.
  const timeoutMs = wholeSetting(env, "MCP_TIMEOUT", "milliseconds", 1).value ?? DEFAULT_MCP_TIMEOUT_MS;
  const callTimeoutMs = wholeSetting(env, "MCP_TOOL_TIMEOUT", "milliseconds", 1).value ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
  const maxOutputChars = (wholeSetting(env, "MAX_MCP_OUTPUT_TOKENS", "tokens", 1).value ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS) * 4;
  // The MCP SDK is loaded here, on first use: runs without MCP servers never need it.
  const { closeConnection, connectServer } = await import("./connection.ts");
  let tools: Tool[] = [];
  // Empty until every server has answered or failed; a change said before then is in the tools
  // listed at that point.
  let connections: McpConnection[] = [];
  const toolCounts = new Map<McpConnection, number>();
  const resourceReaders = resourceTools(() => [...(options.resourcesBeside?.() ?? []), ...connections].filter(hasResources), { callTimeoutMs, maxOutputChars });
  /** Exposes the connected servers' tools, in server order; said for `reported` servers only. */
  const expose = (reported: ReadonlySet<McpConnection>) => {
    tools = [];
    const taken = new Set<string>();
    for (const connection of connections) {
      if (connection.state !== "connected" && !toolCounts.has(connection)) continue;
      const name = connection.config.name;
      const say = (message: string) => reported.has(connection) && notice("warn", message);
      let count = 0;
      for (const { name: tool, reason } of connection.skippedTools) say(`MCP tool ${tool} of server ${name} left out: ${reason}`);
      for (const info of connection.tools) {
        const toolName = mcpToolName(name, info.name);
        if (toolName.length > MAX_TOOL_NAME_LENGTH) {
          say(`MCP tool ${info.name} of server ${name} left out: its name ${toolName} is longer than ${MAX_TOOL_NAME_LENGTH} characters`);
          continue;
        }
        if (taken.has(toolName)) {
          say(`MCP tool ${info.name} of server ${name} left out: another tool is already named ${toolName}`);
          continue;
        }
        taken.add(toolName);
        tools.push(mcpTool(connection, info, toolName, { callTimeoutMs, maxOutputChars }));
        count++;
      }
      toolCounts.set(connection, count);
    }
    if (connections.some(hasResources)) tools.push(...resourceReaders);
  };
  connections = await Promise.all(
    config.servers.map((server) =>
      connectServer(server, {
        cwd: options.cwd,
        env,
        ...(options.networkEnv && { networkEnv: options.networkEnv }),
        timeoutMs,
        signal: lifetime.signal,
        ...(options.relay && { relay: options.relay }),
        ...(options.oauthFile && { oauthFile: options.oauthFile }),
        onLost: (connection) => notice("error", `MCP server ${connection.config.name} failed: ${connection.error}`),
        onToolsChanged: (connection, error) => {
          const name = connection.config.name;
          if (!connections.includes(connection)) return;
          if (error !== undefined) return notice("warn", `MCP server ${name} said its tools changed, but listing them failed: ${error}`);
          expose(new Set([connection]));
          const count = toolCounts.get(connection) ?? 0;
          notice("info", `MCP server ${name} changed its tools: ${count} tool${count === 1 ? "" : "s"}, used from the next prompt on`);
        },
      }),
    ),
  );

  expose(new Set(connections));
  for (const connection of connections) {
    const name = connection.config.name;
    if (connection.state !== "connected") {
      if (lifetime.signal.aborted) continue;
      if (connection.needsSignIn) notice("warn", `MCP server ${name} ${connection.error}; it is left out until then`);
      else notice("error", `MCP server ${name} failed: ${connection.error}`);
      continue;
    }
    const count = toolCounts.get(connection) ?? 0;
    notice("info", `MCP server ${name} connected: ${count} tool${count === 1 ? "" : "s"}${connectedExtras(connection)}`);
    for (const problem of connection.skippedPrompts) notice("warn", `MCP server ${name}: ${problem}`);
  }

  let closing: Promise<void> | undefined;
  close = () => {
    closing ??= Promise.all(connections.map(closeConnection)).then(() => {});
    options.signal?.removeEventListener("abort", onOuterAbort);
    lifetime.abort();
    return closing;
  };
  if (lifetime.signal.aborted) await close();

  return {
    get tools() {
      return tools;
    },
    get resourceServers() {
      return connections.filter(hasResources).map((connection) => connection.config.name);
    },
    resourceConnections: () => connections.filter(hasResources),
    get prompts() {
      // Two servers whose names sanitise alike would offer one command name twice: the first keeps it.
      const byName = new Map<string, McpPromptCommand>();
      for (const connection of connections) {
        if (connection.state !== "connected") continue;
        for (const command of promptCommands(connection, connection.prompts, callTimeoutMs, maxOutputChars)) if (!byName.has(command.name)) byName.set(command.name, command);
      }
      return [...byName.values()];
    },
    status: () =>
      connections.map((connection) => ({
        name: connection.config.name,
        state: connection.state === "connecting" ? "failed" : connection.state,
        ...(connection.error === undefined ? {} : { error: connection.error }),
        ...(connection.needsSignIn && { needsSignIn: true }),
        toolCount: toolCounts.get(connection) ?? 0,
      })),
    connections: () => connections,
    close: () => close(),
  };
}

/** ", 2 prompts, resources" for a server that has them. */
function connectedExtras(connection: McpConnection): string {
  const count = connection.prompts.length;
  return `${count ? `, ${count} prompt${count === 1 ? "" : "s"}` : ""}${hasResources(connection) ? ", resources" : ""}`;
}
