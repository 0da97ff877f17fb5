export { createToolRegistry, DEFAULT_DEFER_THRESHOLD } from "./registry.ts";
export type { ToolRegistry, ToolRegistryOptions } from "./registry.ts";
export { toolSearchTool, TOOL_SEARCH_NAME, DEFAULT_SEARCH_RESULTS } from "./tool-search.ts";
export type { ToolSearchHost } from "./tool-search.ts";
