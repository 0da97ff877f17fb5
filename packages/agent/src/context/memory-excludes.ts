// Claude Code's claudeMdExcludes: glob patterns (or plain absolute paths) of memory files not to
// load. They are matched against a file's absolute path, and against its real path when a link leads
// elsewhere; `*` and `**` match names that start with a dot too (`**/packages/web/**` takes that
// package's .claude/rules as well), as Claude Code's matching does. Every memory file Harness loads
// may be excluded: it reads no managed CLAUDE.md, the one kind Claude Code never excludes.
import path from "node:path";
import { realPathOf } from "../real-paths.ts";

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

/** A glob as a whole-path regular expression: `**` any depth, `*` and `?` within one name,
 * `[...]` a class, `{a,b}` alternatives; a backslash makes the next character plain. */
function globRegExp(glob: string): RegExp {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const wholeSegment = (i === 0 || glob[i - 1] === "/") && (i + 2 === glob.length || glob[i + 2] === "/");
      out += wholeSegment && glob[i + 2] === "/" ? "(?:[^/]*/)*" : ".*";
      i += wholeSegment && glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[" && glob.indexOf("]", i + 2) !== -1) {
      const end = glob.indexOf("]", i + 2);
      out += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
      i = end;
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else if (c === "\\" && i + 1 < glob.length) out += escape(glob[++i]!);
    else out += escape(c);
  }
  try {
    return new RegExp(`^${out}${")".repeat(braces)}$`);
  } catch {
    return new RegExp(`^${escape(glob)}$`);
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
