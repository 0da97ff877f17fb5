// Claude Code's claudeMdExcludes: glob patterns (or plain absolute paths) of memory files not to
// load. They are matched against a file's absolute path, and against its real path when a link leads
// elsewhere; `*` and `**` match names that start with a dot too (`**/packages/web/**` takes that
// package's .claude/rules as well), as Claude Code's matching does. Every memory file Harness loads
// may be excluded: it reads no managed CLAUDE.md, the one kind Claude Code never excludes.
import path from "node:path";
import { globToRegExp } from "../glob-regexp.ts";
import { escapeRegExp } from "../permissions/tool-names.ts";
import { realPathOf } from "../files/real-paths.ts";

/** Whether a memory file is excluded; undefined when no pattern is given. */
export function memoryExcluder(patterns: readonly string[] | undefined): ((file: string) => boolean) | undefined {
  const compiled = (patterns ?? []).map((pattern) => pattern.trim()).filter((pattern) => pattern !== "").map(globRegExp);
  if (compiled.length === 0) return undefined;
  const matches = (file: string) => compiled.some((pattern) => pattern.test(file.split(path.sep).join("/")));
  return (file) => {
    const absolute = path.resolve(file);
    if (matches(absolute)) return true;
    const real = realPathOf(absolute);
    return real !== absolute && matches(real);
  };
}

/** A glob as a whole-path regular expression; one that makes no regular expression (`[z-a]`) as
 * the plain path it spells. */
function globRegExp(glob: string): RegExp {
  try {
    return new RegExp(`^${globToRegExp(glob, { braces: true })}$`, "s");
  } catch {
    return new RegExp(`^${escapeRegExp(glob)}$`);
  }
}
