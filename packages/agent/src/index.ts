// The loop
export { runAgent, DEFAULT_MAX_TURNS } from "./loop/run-agent.ts";
export type {
  AgentStopReason,
  ApprovalDecision,
  ApprovalRequest,
  RunAgentOptions,
  RunReadyInfo,
  RunAgentResult,
  ModelEventSource,
  RunConfigureChange,
  Tool,
  ToolContext,
  ToolOutput,
  ToolOutputBlock,
} from "./types.ts";
export { createAgentResources } from "./harness/resources.ts";
export type { AgentResources, AgentResourcesOptions, NoticeLevel } from "./harness/resources.ts";
export { findProjectRoot } from "./harness/setup/project-root.ts";
export { DEFAULT_MANAGED_SETTINGS_PATH } from "./harness/setup/setup.ts";
export { trustedAnthropicCredentials, trustedApiKeyHelper } from "./harness/model/api-key-helper.ts";
export { outputSchemaProblem } from "./harness/structured-output.ts";
export { defineTool } from "./define-tool.ts";
export type { ToolDefinition } from "./define-tool.ts";
export { BASE_SYSTEM_PROMPT, defaultSystemPrompt } from "./system-prompt.ts";
export { MAX_TOOL_OUTPUT_CHARS } from "./truncate.ts";

// Built-in tools and their state
export {
  builtinTools,
  bashTool,
  createToolState,
  disposeToolState,
  editTool,
  getTodos,
  globTool,
  grepTool,
  readTool,
  writeTool,
} from "./tools/index.ts";
export type { TodoItem, ToolState, ToolStateOptions, WebSearchAnswer, WebSearchProvider, WebSearchResult } from "./tools/index.ts";

// Settings and permissions
export { loadSettings, permissionContext, SCOPES_BY_PRECEDENCE } from "./settings/index.ts";
export type { LoadedSettings, Settings, SettingsDiagnostic, SettingsScope } from "./settings/index.ts";
export { decide, describeCall, parseRule, PERMISSION_MODES } from "./permissions/index.ts";
export { parsePermissionUpdates } from "./permissions/updates.ts";
export { bypassRefusal } from "./permissions/bypass.ts";
export type { PermissionUpdate } from "./permissions/updates.ts";
export type { PermissionContext, PermissionDecision, PermissionMode, PermissionRule, ToolCall } from "./permissions/index.ts";

// Hooks
export { compileMatcher, HOOK_EVENT_NAMES, mergeHooksConfigs, parseHooksConfig, runHooks } from "./hooks/index.ts";
export type { CallbackHook, HookEventName, HookInput, HookMatcherGroup, HookObserver, HookResult, HookRunResult, HooksConfig, ObservedHook } from "./hooks/index.ts";

// MCP and deferred tools
export { loadMcpConfig, startMcp, convertToolResult, expandEnv, isMcpToolName, mcpToolName } from "./mcp/index.ts";
export type {
  LoadMcpConfigOptions,
  McpConfig,
  McpDiagnostic,
  McpManager,
  McpNoticeLevel,
  McpRelay,
  McpRemoteServerConfig,
  McpServerConfig,
  McpServerStatus,
  McpSettings,
  StartMcpOptions,
} from "./mcp/index.ts";
export { probeMcpServers } from "./harness/mcp/probe.ts";
export type { McpProbeOptions, McpProbeOutcome } from "./harness/mcp/probe.ts";
export { createToolRegistry, DEFAULT_DEFER_THRESHOLD, TOOL_SEARCH_NAME } from "./tool-registry/index.ts";
export type { ToolRegistry, ToolRegistryOptions } from "./tool-registry/index.ts";

// Context: memory files, environment, request assembly
export { assembleRequestContext, createNestedMemory, environmentBlock, estimateTokens, gitSnapshot, loadMemory } from "./context/index.ts";
export type { GitSnapshot, MemoryFile, NestedMemory, RequestContext, RequestContextInput } from "./context/index.ts";

// Skills, slash commands, sub-agents, compaction
export { discoverSkills, skillsRegistry, skillTool } from "./skills/index.ts";
export type { Skill } from "./skills/index.ts";
export { discoverCommands, expandSlashCommand, slashCommandHelp } from "./commands/index.ts";
export type { SlashCommand, SlashExpansion } from "./commands/index.ts";
export { builtinAgents, createSubagentSpawner, loadAgentDefinitions, taskTool } from "./subagents/index.ts";
export type { AgentDefinition, SubagentOutput, SubagentRequest } from "./subagents/index.ts";
export { exitPlanModeTool } from "./plan-mode/exit-plan-mode.ts";
export { defaultTools, offered, type DefaultToolsSetup } from "./harness/default-tools.ts";
export { registeredTool } from "./tools/registered/registered-tool.ts";
export { mainAgentOf, mainAgentTools } from "./harness/agents/main-agent.ts";
export { schemaOf } from "./harness/request.ts";
export { EXIT_PLAN_MODE_TOOL_NAME } from "./plan-mode/texts.ts";
export { compact, contextMessages, contextWindowFor, rejoinTranscript, shouldCompact } from "./compaction/index.ts";
export type { CompactResult, TranscriptEntry } from "./compaction/index.ts";
export { sandboxPolicy, sandboxUnavailable, stopSandbox, type SandboxPolicy, type SandboxSettings } from "./sandbox/index.ts";
