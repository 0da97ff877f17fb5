// Matching a ToolSearch query against tools: `select:a,b` picks by exact name, anything else is a
// keyword search over names and descriptions (a `+word` must appear in the name).
import type { Tool } from "../types.ts";

export type ToolQuery = { kind: "select"; names: string[] } | { kind: "keywords"; required: string[]; optional: string[] };

export function parseToolQuery(query: string): ToolQuery {
  const trimmed = query.trim();
  if (/^select:/i.test(trimmed)) {
    const names = trimmed.slice("select:".length).split(",").map((n) => n.trim()).filter(Boolean);
    return { kind: "select", names };
  }
  const required: string[] = [];
  const optional: string[] = [];
  for (const word of trimmed.toLowerCase().split(/\s+/).filter(Boolean)) {
    if (word.startsWith("+") && word.length > 1) required.push(word.slice(1));
    else optional.push(word);
  }
  return { kind: "keywords", required, optional };
}

/** The best `max` tools for the keywords, best first; ties keep the tools' order. */
export function searchTools(tools: readonly Tool[], required: readonly string[], optional: readonly string[], max: number): Tool[] {
  const scored: { tool: Tool; score: number; index: number }[] = [];
  tools.forEach((tool, index) => {
    const name = tool.name.toLowerCase();
    if (!required.every((word) => name.includes(word))) return;
    const parts = nameParts(tool.name);
    const description = tool.description.toLowerCase();
    let score = required.length ? 1 : 0;
    for (const word of optional) score += scoreWord(word, name, parts, description);
    if (score > 0) scored.push({ tool, score, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, max).map((s) => s.tool);
}

function scoreWord(word: string, name: string, parts: readonly string[], description: string): number {
  if (name === word) return 20;
  if (parts.includes(word)) return 10;
  if (name.includes(word)) return 5;
  if (new RegExp(`\\b${escapeRegExp(word)}`).test(description)) return 2;
  return 0;
}

/** `mcp__github__createIssue` → ["mcp", "github", "create", "issue"]. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
