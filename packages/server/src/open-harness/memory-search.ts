// memory.search: the session's memory blocks and archive entries (as the read routes show them,
// secrets hidden) that hold the query, without regard to case. One result a block or entry: the lines
// that hold it, and a score that ranks them by how often they hold it (the one that holds it most
// scores 1).
import type { ArchiveEntry } from "./memory-archive.ts";
import type { MemoryBlock } from "./routes-memory.ts";

export type MemorySearchResult =
  | { source: "block"; label: string; content: string; relevance_score: number; matches: number }
  | { source: "archive"; id: string; content: string; relevance_score: number; matches: number };

/** The most lines of a block a result quotes, and the longest quoted line. */
export const MAX_QUOTED_LINES = 20;
export const MAX_LINE_CHARS = 500;

/** The blocks, then the archive's entries, that hold `query`, the best first (in that order among
 * equals: the runs' order of the blocks, the entries newest first), at most `limit`. */
export function searchMemory(blocks: readonly MemoryBlock[], entries: readonly ArchiveEntry[], query: string, limit: number): MemorySearchResult[] {
  const needle = query.toLowerCase();
  const found = [
    ...blocks.flatMap((block) => quoted(block.value, needle, { source: "block" as const, label: block.label })),
    ...entries.flatMap((entry) => quoted(entry.content, needle, { source: "archive" as const, id: entry.id })),
  ];
  const most = Math.max(0, ...found.map((result) => result.matches));
  return found
    .map((result) => ({ ...result, relevance_score: Math.round((result.matches / most) * 1000) / 1000 }))
    .sort((a, b) => b.matches - a.matches)
    .slice(0, limit);
}

/** `text`'s lines that hold `needle`, with `what` names them; none when it does not hold it. */
function quoted<T extends object>(text: string, needle: string, what: T): (T & { content: string; matches: number })[] {
  const matches = occurrences(text.toLowerCase(), needle);
  if (matches === 0) return [];
  const lines = text.split(/\r?\n/).filter((line) => line.toLowerCase().includes(needle));
  // A query across lines (it holds a newline) matches no one line: the text's start is quoted.
  const shown = lines.length > 0 ? lines : [text];
  const content = shown.slice(0, MAX_QUOTED_LINES).map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line)).join("\n");
  return [{ ...what, content, matches }];
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
