import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import type { ToolOutput } from "../types.ts";
import os from "node:os";
import { specialFileKind } from "../files/file-kind.ts";
import path from "node:path";

/** An argument path made absolute: "~" is the home directory, relative paths start at `cwd`. */
export function resolvePath(cwd: string, filePath: string): string {
  if (filePath === "~") return os.homedir();
  if (filePath.startsWith("~/")) return path.join(os.homedir(), filePath.slice(2));
  return path.resolve(cwd, filePath);
}

/** A path as shown to the model: relative to `cwd` when inside it (shorter, and accepted back by
 * every tool), absolute otherwise. */
export function displayPath(cwd: string, absolutePath: string): string {
  const relative = path.relative(cwd, absolutePath);
  if (relative === "") return ".";
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return absolutePath;
  return relative;
}

export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

/** Why the tools do not read or write `stat`'s file whole (see specialFileKind), if they do not. */
export function specialFileProblem(stat: Stats, shown: string): string | undefined {
  const kind = specialFileKind(stat);
  if (kind === undefined) return undefined;
  return `${shown} is ${kind}, not a regular file, so it is not read or written whole. Use Bash with a limit (head -c 1000 "${shown}", for example) if you need to look at it.`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

/** The whole of `file` (shown to the model as `shown`), or the tool's answer saying why it cannot be read. */
export async function wholeFile(file: string, shown: string): Promise<Buffer | ToolOutput> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
  }
}
