// What the debug log (`harness run --debug mcp`) says of an MCP server: how it is reached, never
// its env, headers, or a URL's credentials and query; and a stdio server's stderr, line by line
// (server-stderr.ts), as the server wrote it. The values of its env and headers are hidden from
// then on wherever they are (its command line, its stderr, an error that quotes them).
import { debugLog, debugOn, hideInDebugLog } from "@harness/llm/debug-log";
import type { McpRunServerConfig } from "./config.ts";
import { publicUrl, withPublicUrl } from "./public-url.ts";
import { serverSecrets } from "./server-secrets.ts";

/** The server's command line, URL (see publicUrl), or "served by the program driving the run". */
function reached(config: McpRunServerConfig): string {
  if (config.type === "stdio") return [config.command, ...config.args].join(" ");
  if (config.type === "sdk") return "served by the program driving the run";
  return `${config.type} ${publicUrl(config.url)}`;
}

/** One line about server `config` ("starting" first); `what` is built only when the log shows MCP
 * lines. A remote server's URL in it (an error quotes it) is said as `reached` says it. */
export function mcpDebug(config: McpRunServerConfig, what: "starting" | ((name: string) => string)): void {
  // Learnt whatever the filter, for a hook's line may quote them too.
  if (what === "starting") hideInDebugLog(serverSecrets(config));
  if (!debugOn("mcp")) return;
  if (what === "starting") return debugLog("mcp", `server ${config.name} starting: ${reached(config)}`);
  const line = what(config.name);
  debugLog("mcp", config.type === "http" || config.type === "sse" ? withPublicUrl(line, config.url) : line);
}
