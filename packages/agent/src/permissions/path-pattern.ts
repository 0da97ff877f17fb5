import path from "node:path";
import { globToRegExp, hasGlob, unescapeGlob } from "../glob-regexp.ts";

/** A path rule's pattern, compiled against the directories it depends on. */
export type PathMatcher = (absolutePath: string) => boolean;

export type PatternDirs = {
  /** Base of `/path` patterns (the rule's settings root). */
  root: string;
  cwd: string;
  home: string;
};

/** Compiles a Read/Edit rule pattern with gitignore semantics:
 * - `//abs/path` is absolute, `~/path` starts at home, `/path` at the rule's root, `path` and
 *   `./path` at cwd;
 * - a pattern with a slash before its last character is anchored at its base; one without
 *   (`*.env`, `.env`) matches a name at any depth below the base;
 * - `*` and `?` stay within one path segment, `**` spans segments, `[...]` is a character class,
 *   `\` escapes;
 * - a pattern matching a directory matches everything inside it, as in gitignore.
 * Leading literal segments, `..` included, are resolved lexically into the base, so
 * `../shared/**` means the sibling directory `shared`. */
export function compilePathPattern(pattern: string, dirs: PatternDirs): PathMatcher {
  const { base, segments, anchored } = splitPattern(pattern, dirs);
  if (segments.length === 0 || (segments.length === 1 && segments[0] === "**")) return (target) => isSameOrInside(target, base);

  const body = globToRegExp(segments.join("/"));
  const regex = new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`, "s");
  return (target) => {
    const relative = path.relative(base, target);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return false;
    // The path itself or any directory above it (below the base) may match.
    let prefix = "";
    for (const segment of relative.split(path.sep)) {
      prefix = prefix === "" ? segment : `${prefix}/${segment}`;
      if (regex.test(prefix)) return true;
    }
    return false;
  };
}

/** Whether the pattern could match `dir` or anything below it: every path it matches lies at or
 * below its base, so the two must nest one way or the other. */
export function patternMayMatchWithin(pattern: string, dirs: PatternDirs, dir: string): boolean {
  const { base } = splitPattern(pattern, dirs);
  return isSameOrInside(dir, base) || isSameOrInside(base, dir);
}

/** The directory a pattern starts at (its leading literal segments resolved into it when anchored)
 * and the glob segments that follow. */
function splitPattern(pattern: string, dirs: PatternDirs): { base: string; segments: string[]; anchored: boolean } {
  let base = dirs.cwd;
  let rest = pattern;
  let anchored = false;
  if (rest.startsWith("//")) {
    base = "/";
    rest = rest.slice(2);
    anchored = true;
  } else if (rest === "~" || rest.startsWith("~/")) {
    base = dirs.home;
    rest = rest.slice(2);
    anchored = true;
  } else if (rest.startsWith("/")) {
    base = dirs.root;
    rest = rest.slice(1);
    anchored = true;
  } else if (rest.startsWith("./")) {
    rest = rest.slice(2);
  }
  rest = rest.replace(/\/+$/, "");
  if (rest.includes("/")) anchored = true;

  const segments = rest === "" ? [] : rest.split("/");
  if (anchored) {
    while (segments.length > 0 && !hasGlob(segments[0])) {
      base = path.resolve(base, unescapeGlob(segments.shift() as string));
    }
  }
  return { base, segments, anchored };
}

function isSameOrInside(target: string, dir: string): boolean {
  const relative = path.relative(dir, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
