/** Longest tool name the model APIs accept; longer MCP tool names are left out, as Claude Code does. */
export const MAX_TOOL_NAME_LENGTH = 128;

export const MCP_TOOL_PREFIX = "mcp__";

/** Replaces every character outside [A-Za-z0-9_-] with "_". */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** `mcp__<server>__<tool>`, both parts sanitised. */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${sanitizeName(server)}__${sanitizeName(tool)}`;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
