import type { ToolCall } from "./types.ts";

const MAX_LENGTH = 1000;

/** One line for an approval prompt: the command for Bash, the path for file tools, the URL for
 * WebFetch, the query for WebSearch, the input as JSON otherwise. Line breaks show as ⏎; very long
 * text is cut with an ellipsis. */
export function describeCall(call: ToolCall): string {
  return oneLine(describe(call));
}

function describe(call: ToolCall): string {
  const input = call.input;
  const text = (key: string): string | undefined => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  switch (call.name) {
    case "Bash":
      return text("command") ?? json(input);
    case "Read":
    case "Edit":
    case "MultiEdit":
    case "Write":
      return text("file_path") ?? json(input);
    case "NotebookEdit":
    case "NotebookRead":
      return text("notebook_path") ?? json(input);
    case "Glob":
    case "Grep": {
      const pattern = text("pattern");
      if (pattern === undefined) return json(input);
      const where = text("path");
      return where === undefined ? pattern : `${pattern} in ${where}`;
    }
    case "LS":
      return text("path") ?? ".";
    case "WebFetch":
      return text("url") ?? json(input);
    case "WebSearch":
      return text("query") ?? json(input);
    default:
      return json(input);
  }
}

function json(input: Record<string, unknown>): string {
  try {
    return JSON.stringify(input) ?? "{}";
  } catch {
    return "{…}";
  }
}

function oneLine(text: string): string {
  const flat = text.trim().replace(/\s*\r?\n\s*/g, " ⏎ ");
  return flat.length > MAX_LENGTH ? `${flat.slice(0, MAX_LENGTH - 1)}…` : flat;
}
