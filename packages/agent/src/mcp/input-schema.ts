// An MCP tool's input schema as the model APIs take it.
import { isJsonObject } from "../config/json-text.ts";

/** Keywords the model APIs refuse at the top of a tool's input schema (Anthropic answers every
 * request that holds one with "input_schema does not support oneOf, allOf, or anyOf at the top
 * level"), although MCP servers publish them, e.g. for "give either `url` or `path`". */
const COMBINATORS = ["anyOf", "oneOf", "allOf"] as const;

/** The schema with `type: "object"`, without `$schema`, and with any top-level anyOf / oneOf /
 * allOf folded away: their branches' properties join the top-level ones (an allOf's `required`
 * too, since every branch applies), so the model still sees every field. The server validates
 * the arguments against its own schema and says what is wrong. */
export function modelInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  const out: Record<string, unknown> = { ...rest, type: "object" };
  if (!COMBINATORS.some((key) => key in out)) return out;
  const properties: Record<string, unknown> = isJsonObject(out.properties) ? { ...out.properties } : {};
  const required = new Set(Array.isArray(out.required) ? out.required.filter((name) => typeof name === "string") : []);
  for (const key of COMBINATORS) {
    const branches = out[key];
    delete out[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isJsonObject(branch)) continue;
      if (isJsonObject(branch.properties)) for (const [name, property] of Object.entries(branch.properties)) if (!(name in properties)) properties[name] = property;
      if (key === "allOf" && Array.isArray(branch.required)) for (const name of branch.required) if (typeof name === "string") required.add(name);
    }
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return out;
}
