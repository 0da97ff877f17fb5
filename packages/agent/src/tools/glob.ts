import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { displayPath, errorCode, errorText, resolvePath } from "./paths.ts";

export const GLOB_MAX_RESULTS = 100;
/** Directories skipped unless the pattern names them. */
const SKIPPED_DIRS = ["node_modules", ".git"];

const description = `Finds files by name with a glob pattern, in a directory tree of any size.

Usage:
- Patterns such as "**/*.ts", "src/**/*.{ts,tsx}" or "*.json" match paths relative to the search directory; "**" crosses directories, "*" does not.
- path is the directory to search, absolute or relative to the shell's current directory (where Bash's \`cd\` left it; at first the project's directory); it defaults to that directory. Leave it out rather than passing "." or "undefined".
- Returns matching file paths (relative to the shell's current directory when inside it, else absolute), most recently modified first, at most ${GLOB_MAX_RESULTS}. When more match, narrow the pattern or the path.
- node_modules and .git are skipped unless the pattern names them, and "**" does not enter hidden directories.
- To search file contents, use Grep. For open-ended searches that need several rounds of globbing and grepping, make several calls in one reply.`;

export const globTool = defineTool({
  name: "Glob",
  readOnly: true,
  description,
  parameters: z.strictObject({
    pattern: z.string().min(1).describe("The glob pattern to match files against"),
    path: z.string().optional().describe("The directory to search in (default: the shell's current directory)"),
  }),
  async execute({ pattern, path: searchPath }, { cwd, signal, denied }) {
    const root = resolvePath(cwd, searchPath ?? ".");
    const shownRoot = displayPath(cwd, root);
    try {
      const stat = await fs.stat(root);
      if (!stat.isDirectory()) return { content: `${shownRoot} is a file, not a directory. Give a directory as path.`, isError: true };
    } catch (error) {
      if (errorCode(error) === "ENOENT") return { content: `Directory does not exist: ${shownRoot}.`, isError: true };
      return { content: `Cannot search ${shownRoot}: ${errorText(error)}`, isError: true };
    }
    const skipped = SKIPPED_DIRS.filter((dir) => !pattern.includes(dir));
    const files: string[] = [];
    try {
      const matches = fs.glob(pattern, {
        cwd: root,
        withFileTypes: true,
        exclude: (entry) => entry.isDirectory() && skipped.includes(entry.name),
      });
      for await (const entry of matches) {
        if (signal.aborted) return { content: "Interrupted by user", isError: true };
        if (!entry.isFile()) continue;
        const file = path.join(entry.parentPath, entry.name);
        if (!denied?.("Glob", file)) files.push(file);
      }
    } catch (error) {
      return { content: `Cannot search ${shownRoot} for ${pattern}: ${errorText(error)}`, isError: true };
    }
    if (files.length === 0) return { content: `No files found matching ${pattern} in ${shownRoot}.` };

    const sorted = await newestFirst(files);
    const shown = sorted.slice(0, GLOB_MAX_RESULTS).map((file) => displayPath(cwd, file));
    if (sorted.length > GLOB_MAX_RESULTS) {
      shown.push(`(Showing the ${GLOB_MAX_RESULTS} most recently modified of ${sorted.length} matching files. Use a more specific pattern or path to see the rest.)`);
    }
    return { content: shown.join("\n") };
  },
});

/** Sorts by modification time, newest first; ties (and unreadable files) by path. */
export async function newestFirst(files: readonly string[]): Promise<string[]> {
  const times = new Map<string, number>();
  const batch = 64;
  for (let i = 0; i < files.length; i += batch) {
    await Promise.all(
      files.slice(i, i + batch).map(async (file) => {
        times.set(file, await fs.stat(file).then((s) => s.mtimeMs, () => 0));
      }),
    );
  }
  return [...files].sort((a, b) => times.get(b)! - times.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
}
