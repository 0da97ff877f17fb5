// Claude Code's init message says an MCP server failed, not why: its mcpServerStatus() does. The
// run tells each failure once, as the builtin backend does ("MCP server docs failed: …").
import type { McpServerStatus, SDKMessage } from "@anthropic-ai/claude-agent-sdk";

/** How long the run waits for Claude Code to say why, before it goes on without saying it. */
const STATUS_WAIT_MS = 5000;

/** Returns a function that, given each of Claude Code's messages, tells through `notice` why each
 * MCP server its init messages say failed did, once per server (asked of `status`). */
export function failedServerNotices(status: () => Promise<McpServerStatus[]>, notice: (message: string) => void): (message: SDKMessage) => Promise<void> {
  const told = new Set<string>();
  return async (message) => {
    if (message.type !== "system" || message.subtype !== "init") return;
    const servers: unknown[] = Array.isArray(message.mcp_servers) ? message.mcp_servers : [];
    const failed = servers.flatMap((s) => {
      const { name, status } = (s ?? {}) as { name?: unknown; status?: unknown };
      return typeof name === "string" && status === "failed" && !told.has(name) ? [name] : [];
    });
    if (failed.length === 0) return;
    for (const name of failed) told.add(name);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), STATUS_WAIT_MS)));
    const known = await Promise.race([status().catch(() => undefined), late]).finally(() => clearTimeout(timer));
    for (const name of failed) {
      const error = known?.find((s) => s.name === name)?.error;
      notice(`MCP server ${name} failed${typeof error === "string" && error ? `: ${error}` : ""}`);
    }
  };
}
