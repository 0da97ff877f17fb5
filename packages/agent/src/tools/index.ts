import type { Tool } from "../types.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

/** The six built-in tools, with Claude Code's names and argument shapes. */
export function builtinTools(): Tool[] {
  return [readTool, writeTool, editTool, bashTool, globTool, grepTool];
}

export { bashTool, editTool, globTool, grepTool, readTool, writeTool };
