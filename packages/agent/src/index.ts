export { runAgent, DEFAULT_MAX_TURNS } from "./run-agent.ts";
export type { AgentStopReason, RunAgentOptions, RunAgentResult, Tool, ToolContext, ToolOutput } from "./types.ts";
export { defineTool } from "./define-tool.ts";
export type { ToolDefinition } from "./define-tool.ts";
export { builtinTools, bashTool, editTool, globTool, grepTool, readTool, writeTool } from "./tools/index.ts";
export { defaultSystemPrompt } from "./system-prompt.ts";
export { MAX_TOOL_OUTPUT_CHARS } from "./truncate.ts";
export { scriptedProvider } from "./testing/scripted-provider.ts";
export type { ScriptedProvider, ScriptedStep, ScriptedToolCall, ScriptedTurn } from "./testing/scripted-provider.ts";
export { loadMcpConfig, startMcp, convertToolResult, expandEnv, isMcpToolName, mcpToolName } from "./mcp/index.ts";
export type {
  LoadMcpConfigOptions,
  McpConfig,
  McpDiagnostic,
  McpManager,
  McpNoticeLevel,
  McpServerConfig,
  McpServerStatus,
  McpSettings,
  StartMcpOptions,
} from "./mcp/index.ts";
export { createToolRegistry, DEFAULT_DEFER_THRESHOLD, TOOL_SEARCH_NAME } from "./tool-registry/index.ts";
export type { ToolRegistry, ToolRegistryOptions } from "./tool-registry/index.ts";
