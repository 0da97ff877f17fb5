import path from "node:path";
import type { PermissionContext } from "./types.ts";

/** A tool's path argument made absolute without touching the disk: `~` and `~/` are the home
 * directory, relative paths start at `cwd`, `.` and `..` are resolved lexically. */
export function resolveToolPath(filePath: string, cwd: string, home: string): string {
  if (filePath === "~") return home;
  if (filePath.startsWith("~/")) return path.resolve(home, filePath.slice(2));
  return path.resolve(cwd, filePath);
}

export function isInside(target: string, dir: string): boolean {
  if (target === dir) return true;
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return target.startsWith(prefix);
}

export function workingDirectories(ctx: PermissionContext): string[] {
  return [ctx.cwd, ...ctx.additionalDirectories];
}

export function isInWorkingDirectories(target: string, ctx: PermissionContext): boolean {
  return workingDirectories(ctx).some((dir) => isInside(target, dir));
}

/** The working directories for a message: "/work" or "/work, /extra". */
export function workingDirectoriesText(ctx: PermissionContext): string {
  return workingDirectories(ctx).join(", ");
}

/** `target` relative to cwd when inside it, for short messages. */
export function shownPath(target: string, cwd: string): string {
  if (!isInside(target, cwd)) return target;
  const relative = path.relative(cwd, target);
  return relative === "" ? "." : relative;
}
