// The secrets an MCP server's configuration holds by value, which whatever shows or logs its
// command line, its stderr or an error quoting them hides (hidden-secrets.ts).
import { configuredSecrets } from "@harness/llm/hidden-secrets";
import type { McpRunServerConfig } from "./config.ts";

/** The secrets of server `config`'s env or headers (configuredSecrets); its arguments' are hidden
 * by their shape (`--api-key X`). */
export function serverSecrets(config: McpRunServerConfig): string[] {
  if (config.type === "sdk") return [];
  return config.type === "stdio" ? configuredSecrets(config.env, "env") : configuredSecrets(config.headers, "headers");
}
