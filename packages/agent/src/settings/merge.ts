import type { Settings } from "./types.ts";

/** Merges settings given lowest precedence first (user, project, local, managed), as Claude Code
 * does: arrays concatenate without duplicates (permission rules, additionalDirectories, hook
 * groups per event, MCP server lists), objects merge key by key (env, hooks, permissions), and
 * any other value comes from the highest scope that sets it (model, defaultMode). An MCP server
 * defined in a higher scope replaces the lower definition whole. */
export function mergeSettings(layers: readonly Settings[]): Settings {
  let merged: Record<string, unknown> = {};
  for (const layer of layers) {
    const { mcpServers, ...rest } = layer;
    merged = mergeValue(merged, rest) as Record<string, unknown>;
    if (mcpServers !== undefined) {
      merged.mcpServers = { ...(merged.mcpServers as Record<string, unknown> | undefined), ...structuredClone(mcpServers) };
    }
  }
  return merged as Settings;
}

function mergeValue(lower: unknown, higher: unknown): unknown {
  if (Array.isArray(lower) && Array.isArray(higher)) return dedupe([...lower, ...higher]);
  if (isPlainObject(lower) && isPlainObject(higher)) {
    const out: Record<string, unknown> = { ...lower };
    for (const [key, value] of Object.entries(higher)) out[key] = key in out ? mergeValue(out[key], value) : structuredClone(value);
    return out;
  }
  return structuredClone(higher);
}

function dedupe(items: unknown[]): unknown[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = typeof item === "string" ? `s:${item}` : `j:${JSON.stringify(item)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
