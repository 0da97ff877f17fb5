// What the debug log (`harness run --debug mcp`) says of an MCP server: how it is reached, never
// its env, headers, or a URL's credentials and query.
import { debugLog, debugOn } from "@harness/llm/debug-log";
import type { McpRunServerConfig } from "./config.ts";

/** The server's command line, URL, or "served by the program driving the run". */
function reached(config: McpRunServerConfig): string {
  if (config.type === "stdio") return [config.command, ...config.args].join(" ");
  if (config.type === "sdk") return "served by the program driving the run";
  try {
    const url = new URL(config.url);
    return `${config.type} ${url.origin}${url.pathname}`;
  } catch {
    return `${config.type} (an unreadable URL)`;
  }
}

/** One line about server `config`; `what` is built only when the log shows MCP lines. A remote
 * server's URL in it (an error quotes it) is said as `reached` says it. */
export function mcpDebug(config: McpRunServerConfig, what: "starting" | ((name: string) => string)): void {
  if (!debugOn("mcp")) return;
  if (what === "starting") return debugLog("mcp", `server ${config.name} starting: ${reached(config)}`);
  const line = what(config.name);
  debugLog("mcp", config.type === "http" || config.type === "sse" ? line.split(config.url).join(reached(config).slice(config.type.length + 1)) : line);
}
