export { loadMcpConfig } from "./load-config.ts";
export type { LoadMcpConfigOptions, McpConfig, McpSettings } from "./load-config.ts";
export type { McpDiagnostic, McpRemoteServerConfig, McpRunServerConfig, McpServerConfig, McpServerScope, McpStdioServerConfig } from "./config.ts";
export type { McpRelay } from "./sdk-transport.ts";
export { expandEnv } from "./expand-env.ts";
export { startMcp, DEFAULT_MCP_TIMEOUT_MS, DEFAULT_MCP_TOOL_TIMEOUT_MS } from "./manager.ts";
export type { McpManager, McpNoticeLevel, McpServerStatus, StartMcpOptions } from "./manager.ts";
export { convertToolResult, EMPTY_RESULT, MAX_IMAGE_BYTES } from "./tool-result.ts";
export { isMcpToolName, mcpToolName, sanitizeName, MAX_TOOL_NAME_LENGTH } from "./names.ts";
