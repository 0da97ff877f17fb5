import { realpathSync } from "node:fs";
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

/** `target` with the symbolic links in it resolved, as far as it exists (the missing rest is kept
 * as written); `target` itself when it cannot be resolved (a loop: the access fails anyway). */
export function realPathOf(target: string): string {
  const rest: string[] = [];
  let existing = target;
  for (;;) {
    try {
      const real = realpathSync.native(existing);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(existing);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === existing) return target;
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}

/** Whether `real` (a path as realPathOf gives it) is in a working directory, their links resolved too. */
export function isReallyInWorkingDirectories(real: string, ctx: PermissionContext): boolean {
  return workingDirectories(ctx).some((dir) => isInside(real, realPathOf(dir)));
}

/** Files inside a project that decide which commands run (git's config and hooks, the settings'
 * hooks and rules, MCP servers): writing one is as much as running a command. */
export function decidesCommands(target: string): boolean {
  const parts = target.split(path.sep);
  if (parts.includes(".git")) return true;
  const name = parts.at(-1);
  if (name === ".mcp.json") return true;
  return parts.at(-2) === ".claude" && (name === "settings.json" || name === "settings.local.json");
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
