// memory.search: the session's memory blocks (as the read routes show them, secrets hidden) that hold
// the query, without regard to case. One result a block: the lines that hold it, and a score that
// ranks the blocks by how often they hold it (the block that holds it most scores 1). There is no
// archive to search.
import type { MemoryBlock } from "./routes-memory.ts";

export type MemorySearchResult = { source: "block"; label: string; content: string; relevance_score: number; matches: number };

/** The most lines of a block a result quotes, and the longest quoted line. */
export const MAX_QUOTED_LINES = 20;
export const MAX_LINE_CHARS = 500;

/** The blocks that hold `query`, the best first (in the runs' order among equals), at most `limit`. */
export function searchBlocks(blocks: readonly MemoryBlock[], query: string, limit: number): MemorySearchResult[] {
  const needle = query.toLowerCase();
  const found = blocks.flatMap((block) => {
    const matches = occurrences(block.value.toLowerCase(), needle);
    if (matches === 0) return [];
    const lines = block.value.split(/\r?\n/).filter((line) => line.toLowerCase().includes(needle));
    // A query across lines (it holds a newline) matches no one line: the block's start is quoted.
    const quoted = lines.length > 0 ? lines : [block.value];
    const content = quoted.slice(0, MAX_QUOTED_LINES).map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line)).join("\n");
    return [{ label: block.label, content, matches }];
  });
  const most = Math.max(0, ...found.map((result) => result.matches));
  return found
    .map((result) => ({ source: "block" as const, ...result, relevance_score: Math.round((result.matches / most) * 1000) / 1000 }))
    .sort((a, b) => b.matches - a.matches)
    .slice(0, limit);
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
