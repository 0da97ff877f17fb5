import path from "node:path";
import { isWithin, realPathOf } from "../real-paths.ts";
import type { PermissionContext } from "./types.ts";

/** A tool's path argument made absolute without touching the disk: `~` and `~/` are the home
 * directory, relative paths start at `cwd`, `.` and `..` are resolved lexically. */
export function resolveToolPath(filePath: string, cwd: string, home: string): string {
  if (filePath === "~") return home;
  if (filePath.startsWith("~/")) return path.resolve(home, filePath.slice(2));
  return path.resolve(cwd, filePath);
}

/** Whether `real` (a path as realPathOf gives it) is in a working directory, their links resolved too. */
export function isReallyInWorkingDirectories(real: string, ctx: PermissionContext): boolean {
  return workingDirectories(ctx).some((dir) => isWithin(real, realPathOf(dir)));
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
  return workingDirectories(ctx).some((dir) => isWithin(target, dir));
}

/** The working directories for a message: "/work" or "/work, /extra". */
export function workingDirectoriesText(ctx: PermissionContext): string {
  return workingDirectories(ctx).join(", ");
}

/** `target` relative to cwd when inside it, for short messages. */
export function shownPath(target: string, cwd: string): string {
  if (!isWithin(target, cwd)) return target;
  const relative = path.relative(cwd, target);
  return relative === "" ? "." : relative;
}
