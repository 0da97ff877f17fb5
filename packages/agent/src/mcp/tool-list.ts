// A server's tools/list answer, checked tool by tool: one malformed tool is left out (and said),
// the server's other tools are still used.
import { isJsonObject } from "../config/json-text.ts";

/** A tool as the server lists it. */
export type McpToolInfo = { name: string; description?: string; inputSchema: Record<string, unknown> };

/** A tool left out, with why. */
export type McpSkippedTool = { name: string; reason: string };

/** The tool, or why it cannot be used. Its output schema is not read: results are passed on as
 * they come, so a malformed one costs nothing. */
export function checkTool(raw: unknown, index: number): { ok: true; tool: McpToolInfo } | { ok: false; skipped: McpSkippedTool } {
  const fail = (name: string, reason: string) => ({ ok: false as const, skipped: { name, reason } });
  if (!isJsonObject(raw)) return fail(`number ${index + 1}`, "the listing is not an object");
  const { name, description, inputSchema } = raw;
  if (typeof name !== "string" || name === "") return fail(`number ${index + 1}`, 'it has no "name"');
  if (!isJsonObject(inputSchema)) return fail(name, '"inputSchema" must be a JSON Schema object');
  if (inputSchema.type !== "object") return fail(name, `"inputSchema" must have "type": "object", not ${JSON.stringify(inputSchema.type)}`);
  const { properties, required } = inputSchema;
  if (properties !== undefined && !(isJsonObject(properties) && Object.values(properties).every(isSchema))) {
    return fail(name, '"inputSchema.properties" must be an object of schemas');
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((item) => typeof item === "string"))) {
    return fail(name, '"inputSchema.required" must be an array of property names');
  }
  return { ok: true, tool: { name, ...(typeof description === "string" && { description }), inputSchema } };
}

/** A JSON Schema is an object or, in its shortest form, a boolean. */
function isSchema(value: unknown): boolean {
  return isJsonObject(value) || typeof value === "boolean";
}
