// What the setup found beyond what the run uses, kept for the inspection commands (/mcp, /memory,
// /hooks, /status: reports/inspect.ts): where each thing came from, and what was left out and why.
import type { HooksConfig } from "../../hooks/types.ts";
import type { McpServerScope } from "../../mcp/config.ts";

/** A configured MCP server the run did not start, and why. */
export type McpNotStarted = { name: string; scope: McpServerScope; file: string; state: "disabled" | "blocked" | "pending approval"; reason: string };

export type RunInventory = {
  /** The settings files in effect, lowest precedence first. */
  settingsFiles: { scope: string; path: string }[];
  /** Where each started MCP server is configured, by name. */
  mcpConfigured: Record<string, { scope: McpServerScope; file: string }>;
  mcpNotStarted: McpNotStarted[];
  /** The hooks that run, by the file (or plugin, or the program) that defines them. */
  hookFiles: { file: string; config: HooksConfig }[];
  /** Only the managed settings' hooks (and managed plugins') run; `all` when none run at all. */
  hooksRestricted?: "managed" | "all";
  /** Memory files not loaded, or loaded with a warning, and why. */
  memoryNotes: { file: string; message: string }[];
};

export function emptyInventory(): RunInventory {
  return { settingsFiles: [], mcpConfigured: {}, mcpNotStarted: [], hookFiles: [], memoryNotes: [] };
}
