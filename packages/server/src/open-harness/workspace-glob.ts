// The glob of files.search, matched as its grep is run (sliced-match.ts): in a vm context, in slices,
// so that a glob that backtracks for ever (many stars, nested extglobs) is stopped, and a folder of
// many entries does not hold up the server. Its braces are counted first: each pattern they make is
// made anew and tried for each path, and {1..100000} alone makes 100,000.
import { matchesGlob } from "node:path/posix";
import { ApiError } from "./errors.ts";
import { slicedMatcher } from "./sliced-match.ts";

export const GLOB_MAX_PATTERNS = 1024;

/** Which of `paths` the glob matches, or "timeout" past `deadline` (ms since the epoch) or when
 * one path takes too long (sliced-match.ts). */
export type GlobMatcher = (paths: string[], deadline: number) => Promise<boolean[] | "timeout">;

/** The matcher of `glob`, or a 400 when its braces make more than GLOB_MAX_PATTERNS patterns. */
export function globMatcher(glob: string): GlobMatcher {
  if (bracePatterns(glob) > GLOB_MAX_PATTERNS) {
    throw new ApiError(400, "invalid_request", `glob: its braces make more than ${GLOB_MAX_PATTERNS} patterns ({a,b} two, {1..9} nine, one after another multiplied): give fewer`, "files.search");
  }
  const matching = slicedMatcher({ matchesGlob, glob }, "(path) => matchesGlob(path, glob)");
  return async (paths, deadline) => {
    const hits = await matching(paths, deadline);
    if (hits === "timeout") return hits;
    const matched = new Set(hits);
    return paths.map((_, i) => matched.has(i));
  };
}

/** At least as many patterns as the braces of `glob` make: {a,b} two, {a,{b,c}} four, {1..9} nine,
 * {a..z} 26, one after another multiplied. */
export function bracePatterns(glob: string): number {
  let total = 1;
  const open: { at: number; commas: number }[] = [];
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "\\") i++;
    else if (char === "{") open.push({ at: i, commas: 0 });
    else if (char === "," && open.length > 0) open[open.length - 1].commas++;
    else if (char === "}" && open.length > 0) {
      const { at, commas } = open.pop()!;
      total *= commas > 0 ? commas + 1 : rangeSize(glob.slice(at + 1, i));
    }
  }
  return total;
}

/** How many a sequence {x..y} makes (1 for what is none). */
function rangeSize(inner: string): number {
  const range = /^(-?\d+|[^\d])\.\.(-?\d+|[^\d])(\.\.-?\d+)?$/.exec(inner);
  if (!range) return 1;
  const [from, to] = [range[1], range[2]].map((end) => (/\d/.test(end) ? Number(end) : end.codePointAt(0)!));
  return Math.abs(to - from) + 1;
}
