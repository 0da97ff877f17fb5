import type { ToolCall } from "./types.ts";

const MAX_LENGTH = 1000;

/** One line for an approval prompt: the command for Bash, the path for file tools, the URL for
 * WebFetch, the query for WebSearch, the plan for ExitPlanMode; otherwise `fallback` when given (e.g. a backend's own prompt
 * sentence), else the input as JSON. Line breaks show as ⏎; very long text is cut with an ellipsis. */
export function describeCall(call: ToolCall, fallback?: string): string {
  return oneLine(describe(call, fallback));
}

function describe(call: ToolCall, fallback: string | undefined): string {
  const input = call.input;
  const json = (value: Record<string, unknown>) => fallback ?? asJson(value);
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
    case "LSP": {
      const file = text("filePath");
      if (file === undefined) return json(input);
      const at = typeof input.line === "number" ? `:${input.line}${typeof input.character === "number" ? `:${input.character}` : ""}` : "";
      return `${text("operation") ?? "LSP"} ${file}${at}${text("query") ? ` ${text("query")}` : ""}`;
    }
    case "WebFetch":
      return text("url") ?? json(input);
    case "WebSearch":
      return text("query") ?? json(input);
    case "ExitPlanMode":
      return text("plan") ?? json(input);
    default:
      return json(input);
  }
}

function asJson(input: Record<string, unknown>): string {
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
