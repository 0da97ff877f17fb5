import type { Tool } from "../types.ts";
import { bashOutputTool } from "./shell/bash-output.ts";
import { bashTool } from "./shell/bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { createGrepTool, grepTool } from "./grep/grep.ts";
import { killShellTool } from "./shell/kill-shell.ts";
import { multiEditTool } from "./multi-edit.ts";
import { notebookEditTool } from "./notebook/notebook-edit.ts";
import { readTool } from "./read.ts";
import type { ToolState } from "./state.ts";
import { todoWriteTool } from "./todo-write.ts";
import { webFetchTool } from "./web/web-fetch.ts";
import { webSearchTool } from "./web/web-search.ts";
import { writeTool } from "./write.ts";

export type BuiltinToolsOptions = {
  /** Used by every tool whose call context has no `state` of its own. */
  state?: ToolState;
};

/** The built-in tools, with Claude Code's names and argument shapes. */
export function builtinTools(options: BuiltinToolsOptions = {}): Tool[] {
  const tools = [
    readTool,
    writeTool,
    editTool,
    multiEditTool,
    notebookEditTool,
    bashTool,
    bashOutputTool,
    killShellTool,
    globTool,
    grepTool,
    todoWriteTool,
    webFetchTool,
    webSearchTool,
  ];
  const { state } = options;
  if (!state) return tools;
  return tools.map((tool) => ({ ...tool, execute: (args, ctx) => tool.execute(args, ctx.state ? ctx : { ...ctx, state }) }));
}

export {
  bashOutputTool,
  bashTool,
  createGrepTool,
  editTool,
  globTool,
  grepTool,
  killShellTool,
  multiEditTool,
  notebookEditTool,
  readTool,
  todoWriteTool,
  webFetchTool,
  webSearchTool,
  writeTool,
};
export type { GrepToolOptions } from "./grep/grep.ts";
export { createToolState, disposeToolState, getTodos, DEFAULT_TOOL_LIMITS } from "./state.ts";
export type {
  FileSnapshot,
  TodoItem,
  TodoStatus,
  ToolLimits,
  ToolState,
  ToolStateOptions,
  WebSearchOptions,
  WebSearchAnswer,
  WebSearchProvider,
  WebSearchResult,
} from "./state.ts";
export type { ShellStatus } from "./shell/background-shells.ts";
export { TODOS_UPDATED } from "./todo-write.ts";
export { WEB_SEARCH_NOT_CONFIGURED } from "./web/web-search.ts";
export { MODIFIED_MESSAGE, NOT_READ_MESSAGE } from "./file-state.ts";
