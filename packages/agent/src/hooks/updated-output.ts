// A PostToolUse hook's replacement of a tool's output (Claude Code's `updatedToolOutput`, and the
// older `updatedMCPToolOutput` for MCP tools), checked against what the hook was told the tool
// answered: it must have the same shape as that `tool_response` (tool-response.ts), as Claude Code
// checks it against the tool's output type. The model, the transcript and the UI then see it in
// place of the tool's own output.
import { isMcpToolName } from "../mcp/names.ts";
import { convertToolResult } from "../mcp/tool-result.ts";
import type { ToolOutput } from "../types.ts";
import type { UpdatedToolOutput } from "./types.ts";

/** The output that replaces the tool's, or why the replacement cannot be used (the tool's own
 * output then stands). `response` is the hook's `tool_response`. */
export function replacedOutput(toolName: string, response: unknown, updated: UpdatedToolOutput): { output: ToolOutput } | { error: string } {
  const { field, value } = updated;
  const invalid = (expected: string) => ({ error: `A PostToolUse hook printed an ${field} for ${toolName} that is not valid, and the tool's own output stands: it must be ${expected}, got ${describe(value)}` });
  if (isMcpToolName(toolName)) {
    // What an MCP server answers: text, a list of content items, or a whole tools/call result.
    if (typeof value === "string") return { output: { content: value } };
    if (Array.isArray(value)) return { output: convertToolResult({ content: value }) };
    if (isObject(value) && Array.isArray(value.content)) return { output: convertToolResult({ content: value.content }) };
    return invalid("a string, a list of MCP content items, or an object with a \"content\" list");
  }
  if (field === "updatedMCPToolOutput") return { error: `A PostToolUse hook printed an updatedMCPToolOutput for ${toolName}, ignored: it is only for MCP tools; updatedToolOutput replaces any tool's output` };
  if (typeof response === "string") return typeof value === "string" ? { output: { content: value } } : invalid("a string");
  if (toolName === "Bash") {
    if (!isObject(value) || typeof value.stdout !== "string") return invalid('an object with a string "stdout"');
    if (value.stderr !== undefined && typeof value.stderr !== "string") return invalid('an object whose "stderr" is a string');
    return { output: { content: [value.stdout, value.stderr ?? ""].filter((text) => text !== "").join("\n") } };
  }
  // The file tools' answers are objects the model never sees as such: it gets the object.
  return isObject(value) ? { output: { content: JSON.stringify(value, null, 2) } } : invalid("an object");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
