// One MCP server: its transport, the client session on it, and whether it is still usable.
import { fetchFor } from "@harness/llm/http-fetch";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Env, McpRemoteServerConfig, McpRunServerConfig } from "./config.ts";
import { mcpDebug } from "./debug-lines.ts";
import { listPages } from "./list-pages.ts";
import { McpSignInNeeded, StoredOAuthProvider } from "./oauth-provider.ts";
import { listAllPrompts, type McpPromptInfo } from "./prompts.ts";
import { givesOwnCredentials, remoteTransport, withCause } from "./remote-transport.ts";
import { withRequestSignal } from "./request-signal.ts";
import { relayTransport, type McpRelay } from "./sdk-transport.ts";
import { ServerStderr } from "./server-stderr.ts";
import { StdioServerTransport, type StdioExit } from "./stdio-transport.ts";
import { checkTool, type McpSkippedTool, type McpToolInfo } from "./tool-list.ts";
import { publicUrl, withPublicUrl } from "./public-url.ts";

export type McpServerState = "connecting" | "connected" | "failed" | "closed";

export type { McpToolInfo } from "./tool-list.ts";

export type McpConnection = {
  readonly config: McpRunServerConfig;
  readonly client: Client;
  state: McpServerState;
  /** Why the server failed, for status and messages. */
  error?: string;
  /** It failed for want of an OAuth sign-in (`harness mcp login <name>`). */
  needsSignIn?: boolean;
  tools: McpToolInfo[];
  /** Tools the server listed that cannot be used, with why. */
  skippedTools: McpSkippedTool[];
  /** The server's prompts (slash commands), listed again when it says they changed. */
  prompts: McpPromptInfo[];
  /** Prompts the server listed that cannot be used, or why listing them failed. */
  skippedPrompts: string[];
  /** Resolves when the transport has closed: for stdio, when the server process is gone or could not
   * be started. */
  readonly transportClosed: Promise<void>;
  /** Set by the first closeConnection(); later calls wait for the same shutdown. */
  closing?: Promise<void>;
};

export type ConnectOptions = {
  cwd: string;
  /** Base environment of stdio servers (their `env` entries are laid over it). */
  env: Env;
  /** The network variables (the proxies, the CA file, the client certificate) of remote (http,
   * sse) servers' requests and of their OAuth sign-ins' refreshes: the run's env as the harness
   * takes it, which a repository's settings cannot route (RunSetup.harnessEnv). Default: `env`. */
  networkEnv?: Env;
  timeoutMs: number;
  /** Fires when the whole manager shuts down. */
  signal: AbortSignal;
  /** Called once when a connected server goes away by itself. */
  onLost(connection: McpConnection): void;
  /** Called when a connected server's tools have been listed anew after it said they changed
   * (notifications/tools/list_changed), or with why they could not be (the old list is kept). */
  onToolsChanged?(connection: McpConnection, error?: string): void;
  /** How the program's own servers (type "sdk") are reached; without it they fail to connect. */
  relay?: McpRelay;
  /** The OAuth sign-in file (oauth-store.ts): a remote server without an Authorization header of
   * its own is given the tokens stored there, refreshed when it finds them expired. Without it a
   * server that wants a sign-in fails as one that wants any other credentials. */
  oauthFile?: string;
};

/** The longest message read from a stdio server (the SDK's default). A longer one ends the
 * connection: the SDK cannot skip it and go on. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;
const MAX_TOOL_PAGES = 100;
/** Longer than a stdio server's shutdown (stdio-transport.ts): 0.5 s for the process to exit on its
 * own, 0.5 s after SIGTERM, 0.5 s after SIGKILL. */
const RELEASE_WAIT_MS = 2_000;

/** Starts the server, runs the MCP handshake and lists its tools, all within `timeoutMs`. Resolves
 * with the connection in state "connected" or "failed" (with `error`); never rejects. A failed
 * connection has already released its process or sockets. */
export async function connectServer(config: McpRunServerConfig, options: ConnectOptions): Promise<McpConnection> {
  const client = new Client({ name: "harness", version: "0.1.0" }, { capabilities: {} });
  const startedAt = performance.now();
  mcpDebug(config, "starting");
  const stderr = new ServerStderr(config);
  const transport = createTransport(config, options, stderr);
  // Set before connect(), which keeps it and calls it first when the transport closes.
  const transportClosed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  const connection: McpConnection = { config, client, state: "connecting", tools: [], skippedTools: [], prompts: [], skippedPrompts: [], transportClosed };

  // Why the transport gave up, when it says so before closing (set before connect(), which keeps
  // it and calls it first).
  let giveUp: string | undefined;
  transport.onerror = (error) => {
    if (/ReadBuffer exceeded/.test(error.message)) {
      giveUp = `it sent a message larger than ${MAX_STDIO_MESSAGE_BYTES / (1024 * 1024)} MB, the most one message may hold, so the connection was closed`;
    }
  };

  client.onclose = () => {
    if (connection.state !== "connected") return;
    connection.state = "failed";
    connection.error = giveUp ?? describeLoss(config, transport, stderr);
    mcpDebug(config, (name) => `server ${name} lost: ${connection.error}`);
    options.onLost(connection);
  };

  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  try {
    await withRequestSignal(signal, async (requestSignal) => {
      const requestOptions = { signal: requestSignal, timeout: options.timeoutMs };
      await client.connect(transport, requestOptions);
      const listed = await listAllTools(client, requestOptions);
      connection.tools = listed.tools;
      connection.skippedTools = listed.skipped;
      await listPrompts(connection, requestOptions);
    });
    if (options.signal.aborted) throw new Error("shutting down");
    connection.state = "connected";
    mcpDebug(config, (name) => `server ${name} connected: ${connection.tools.length} tools after ${Math.round(performance.now() - startedAt)} ms`);
    followToolListChanges(connection, options);
    followPromptListChanges(connection, options);
  } catch (error) {
    connection.state = "failed";
    if (error instanceof McpSignInNeeded) connection.needsSignIn = true;
    connection.error = timeout.aborted
      ? stderr.report(`did not answer within ${options.timeoutMs} ms (MCP_TIMEOUT sets the limit)`)
      : describeStartError(config, error, transport, stderr);
    mcpDebug(config, (name) => `server ${name} failed: ${connection.error}`);
    // A server given up on before its handshake ended (shutdown, timeout, a refused handshake) has
    // no session to end politely: it is stopped at once, with its group, rather than after the wait
    // for it to exit on its own, so that Ctrl+C during a slow server's start does not linger.
    if (transport instanceof StdioServerTransport) transport.terminate();
    await release(connection);
  }
  return connection;
}

/** Runs `relist` each time the server sends `notification` (one of its lists changed), one
 * listing at a time, while the connection is up. */
function followListChanges(
  connection: McpConnection,
  options: ConnectOptions,
  notification: typeof ToolListChangedNotificationSchema | typeof PromptListChangedNotificationSchema,
  relist: (signal: AbortSignal) => Promise<void>,
): void {
  let listing = Promise.resolve();
  const once = async () => {
    if (connection.state === "connected") await withRequestSignal(options.signal, relist);
  };
  connection.client.setNotificationHandler(notification, () => {
    listing = listing.then(once).catch(() => {});
  });
}

/** Lists the tools again each time the server says they changed, and says what came of it. */
function followToolListChanges(connection: McpConnection, options: ConnectOptions): void {
  followListChanges(connection, options, ToolListChangedNotificationSchema, async (signal) => {
    try {
      const listed = await listAllTools(connection.client, { signal, timeout: options.timeoutMs });
      if (connection.state !== "connected") return;
      connection.tools = listed.tools;
      connection.skippedTools = listed.skipped;
      options.onToolsChanged?.(connection);
    } catch (error) {
      if (connection.state === "connected") options.onToolsChanged?.(connection, withCause(error));
    }
  });
}

/** Lists the server's prompts into the connection. A server whose prompts cannot be listed keeps
 * its tools: the failure is kept in `skippedPrompts`, which the manager reports. */
async function listPrompts(connection: McpConnection, options: { signal: AbortSignal; timeout: number }): Promise<void> {
  try {
    const listed = await listAllPrompts(connection, options);
    connection.prompts = listed.prompts;
    connection.skippedPrompts = listed.skipped;
  } catch (error) {
    if (options.signal.aborted) throw error;
    connection.skippedPrompts = [`listing its prompts failed: ${withCause(error)}`];
  }
}

/** Lists the prompts again each time the server says they changed. */
function followPromptListChanges(connection: McpConnection, options: ConnectOptions): void {
  followListChanges(connection, options, PromptListChangedNotificationSchema, (signal) => listPrompts(connection, { signal, timeout: options.timeoutMs }));
}

/** Ends the session and releases the process or sockets. Safe to call in any state; a failed
 * connection keeps its state and error. */
export function closeConnection(connection: McpConnection): Promise<void> {
  connection.closing ??= shutDown(connection);
  return connection.closing;
}

async function shutDown(connection: McpConnection): Promise<void> {
  if (connection.state !== "connected" && connection.state !== "connecting") return;
  connection.state = "closed";
  const transport = connection.client.transport;
  const stoppingAt = performance.now();
  if (transport instanceof StreamableHTTPClientTransport) {
    // Tells the server the session is over; a server that does not answer soon is not waited for.
    await Promise.race([transport.terminateSession().catch(() => undefined), delay(1_000)]);
  }
  await release(connection);
  mcpDebug(connection.config, (name) => `server ${name} stopped after ${Math.round(performance.now() - stoppingAt)} ms`);
}

/** Closes the client and waits until the transport is really closed. A close may already be under
 * way (the SDK starts one when the handshake fails), so the wait is on the transport's close event;
 * it ends at the latest after the transport's SIGTERM/SIGKILL escalation. */
async function release(connection: McpConnection): Promise<void> {
  await connection.client.close().catch(() => undefined);
  await Promise.race([connection.transportClosed, delay(RELEASE_WAIT_MS)]);
}

/** Where a program's server is reached when nothing relays to one: it fails to connect, saying so. */
const NO_RELAY: McpRelay = {
  send: () => Promise.reject(new Error("it is served by the program driving the run, and nothing here relays to one")),
  listen: () => () => {},
};

function createTransport(config: McpRunServerConfig, options: ConnectOptions, stderr: ServerStderr): Transport {
  if (config.type === "sdk") {
    return relayTransport(options.relay ?? NO_RELAY, config.name);
  }
  if (config.type === "stdio") {
    const transport = new StdioServerTransport({
      command: config.command,
      args: config.args,
      cwd: options.cwd,
      env: { ...definedOnly(options.env), CLAUDE_PROJECT_DIR: options.cwd, ...config.env },
      maxBufferSize: MAX_STDIO_MESSAGE_BYTES,
    });
    // Reading it also keeps a chatty server from blocking on a full pipe.
    transport.stderr.setEncoding("utf8");
    transport.stderr.on("data", (text: string) => stderr.write(text));
    transport.stderr.on("end", () => stderr.end());
    return transport;
  }
  const network = options.networkEnv ?? options.env;
  const oauth =
    options.oauthFile && !givesOwnCredentials(config)
      ? new StoredOAuthProvider(options.oauthFile, { name: config.name, url: config.url }, { ...(config.oauth && { client: config.oauth }), fetch: fetchFor(network) })
      : undefined;
  return remoteTransport(config, network, oauth);
}

/** Every page of the server's tools (list-pages.ts), each tool checked on its own. */
async function listAllTools(client: Client, options: { signal: AbortSignal; timeout: number }): Promise<{ tools: McpToolInfo[]; skipped: McpSkippedTool[] }> {
  const tools: McpToolInfo[] = [];
  const skipped: McpSkippedTool[] = [];
  if (!client.getServerCapabilities()?.tools) return { tools, skipped };
  for await (const page of listPages(client, "tools/list", MAX_TOOL_PAGES, options)) {
    for (const raw of page) {
      const checked = checkTool(raw, tools.length + skipped.length);
      if (checked.ok) tools.push(checked.tool);
      else skipped.push(checked.skipped);
    }
  }
  return { tools, skipped };
}

function describeStartError(config: McpRunServerConfig, error: unknown, transport: Transport, stderr: ServerStderr): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (config.type === "stdio" && code === "ENOENT") return `command not found: ${config.command}`;
  if (config.type === "stdio" && code === "EACCES") return `command is not executable: ${config.command}`;
  if (error instanceof McpSignInNeeded) return error.message;
  const message = withCause(error);
  if (config.type === "sdk") return `the program's server did not connect: ${message}`;
  if (config.type !== "stdio") return `cannot connect to ${publicUrl(config.url)}: ${withPublicUrl(describeHttpFailure(config, error, message), config.url)}`;
  // The SDK says only "Connection closed" of a server that exited before it answered.
  const exit = transport instanceof StdioServerTransport && transport.exit;
  const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
  return stderr.report(exit && closed ? describeExit(exit) : message);
}

/** The SDK's remote transports say the body of a refused request, not its status: the status
 * comes first here, and for a server that wants credentials, how to give them. */
function describeHttpFailure(config: McpRemoteServerConfig, error: unknown, message: string): string {
  const status = (error as { code?: unknown } | undefined)?.code;
  if (typeof status !== "number" || status < 400 || status > 599) return message;
  if ((status === 401 || status === 403) && givesOwnCredentials(config)) return `HTTP ${status}, the server refused the credentials of the entry's "headers" (${message})`;
  if (status === 401 || status === 403) {
    return `HTTP ${status}, the server wants credentials: sign in with "harness mcp login ${config.name}", or give a token in the entry's "headers" (e.g. "Authorization": "Bearer \${TOKEN}") (${message})`;
  }
  return `HTTP ${status} (${message})`;
}

function describeLoss(config: McpRunServerConfig, transport: Transport, stderr: ServerStderr): string {
  if (transport instanceof StdioServerTransport) return stderr.report(transport.exit ? describeExit(transport.exit) : "its process closed the connection");
  return config.type === "sdk" ? "the program closed it" : "the connection closed";
}

function describeExit(exit: StdioExit): string {
  return exit.signal ? `its process was ended by ${exit.signal}` : `its process exited with code ${exit.code}`;
}

function definedOnly(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
