import path from "node:path";
import { isWithin, realPathOf } from "../files/real-paths.ts";
import type { PermissionContext } from "./types.ts";

/** A tool's path argument made absolute without touching the disk: `~` and `~/` are the home
 * directory, relative paths start at `cwd`, `.` and `..` are resolved lexically. */
export function resolveToolPath(filePath: string, cwd: string, home: string): string {
  if (filePath === "~") return home;
  if (filePath.startsWith("~/")) return path.resolve(home, filePath.slice(2));
  return path.resolve(cwd, filePath);
}

/** Where a call's relative paths start: the agent's shell directory when it has moved, else cwd. */
export function argumentDir(ctx: PermissionContext): string {
  return ctx.toolCwd ?? ctx.cwd;
}

/** Whether `real` (a path as realPathOf gives it) is in a working directory, their links resolved too. */
export function isReallyInWorkingDirectories(real: string, ctx: PermissionContext): boolean {
  return workingDirectories(ctx).some((dir) => isWithin(real, realPathOf(dir)));
}

/** Directories whose files decide what runs (git's config and hooks, husky's hooks, editors' tasks
 * and settings, Claude's settings and hook scripts). In `.claude`, the commands, agents, skills and
 * worktrees the agent routinely writes are left out, as in Claude Code. */
const COMMAND_DIRS = new Set([".git", ".husky", ".vscode", ".idea", ".claude"]);
const CLAUDE_CONTENT_DIRS = new Set(["commands", "agents", "skills", "worktrees"]);
/** Files that decide what runs: MCP servers, git's and the shells' configuration, and a `.git`
 * file (it names the repository, config and hooks included, that git uses). */
const COMMAND_FILES = new Set([".git", ".mcp.json", ".claude.json", ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc"]);

/** Files inside a project that decide which commands run (Claude Code's protected paths): writing
 * one is as much as running a command. */
export function decidesCommands(target: string): boolean {
  const parts = target.split(path.sep);
  for (let i = 0; i < parts.length - 1; i++) {
    if (!COMMAND_DIRS.has(parts[i])) continue;
    if (parts[i] !== ".claude" || !CLAUDE_CONTENT_DIRS.has(parts[i + 1])) return true;
  }
  return COMMAND_FILES.has(parts.at(-1) ?? "");
}

/** A HEAD file at the top of a working directory: with config, objects and refs beside it, git run
 * there (no .git above it) takes the directory for a repository and obeys its config. */
export function makesRepository(target: string, ctx: PermissionContext): boolean {
  return path.basename(target) === "HEAD" && workingDirectories(ctx).includes(path.dirname(target));
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
