// Turns a model's tool call into something runnable, or into an error text the model can act on.
import type { z } from "zod";
import type { Tool } from "../types.ts";

export type PreparedCall = { ok: true; tool: Tool; args: unknown } | { ok: false; error: string };

/** Where tools are looked up by name: a Map, or the tool registry's view of the run's tools. */
export type ToolLookup = { get(name: string): Tool | undefined; keys(): Iterable<string> };

export function prepareToolCall(tools: ToolLookup, name: string, input: unknown): PreparedCall {
  const tool = tools.get(name);
  if (!tool) {
    const available = [...tools.keys()].join(", ") || "none";
    return { ok: false, error: `Unknown tool: ${name}. Available tools: ${available}` };
  }
  return validateToolInput(tool, input);
}

/** `input` checked against the tool's parameters: the parsed arguments, or an error naming each bad
 * field. */
export function validateToolInput(tool: Tool, input: unknown): PreparedCall {
  const parsed = tool.parameters.safeParse(input ?? {}, { reportInput: true });
  if (parsed.success) return { ok: true, tool, args: parsed.data };
  return { ok: false, error: describeInputError(tool.name, parsed.error) };
}

export function describeInputError(toolName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => `- ${describeIssue(issue)}`);
  return `Invalid arguments for ${toolName}:\n${lines.join("\n")}\nFix the arguments and call ${toolName} again.`;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length ? issue.path.map(String).join(".") : "";
  const where = field ? `parameter "${field}"` : "the arguments";
  switch (issue.code) {
    case "invalid_type":
      if (!("input" in issue) || issue.input === undefined) {
        return field ? `missing required parameter "${field}" (expected ${issue.expected})` : `expected an ${issue.expected}`;
      }
      return `${where} must be ${article(issue.expected)}, but got ${describeValue(issue.input)}`;
    case "unrecognized_keys":
      return `unexpected parameter${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}; remove ${issue.keys.length > 1 ? "them" : "it"}`;
    case "invalid_value":
      return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, but got ${describeValue(issue.input)}`;
    default:
      return `${where}: ${issue.message}${"input" in issue && issue.input !== undefined ? ` (got ${describeValue(issue.input)})` : ""}`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return `${typeof value} ${shown}`;
}
