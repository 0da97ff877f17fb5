import { findRule } from "./match-rule.ts";
import { patternMayMatchWithin } from "./path-pattern.ts";
import { isWithin, realPathOf } from "../files/real-paths.ts";
import { decidesCommands, isInWorkingDirectories, makesRepository, isReallyInWorkingDirectories, shownPath, workingDirectoriesText } from "./paths.ts";
import { ruleCoversTool } from "./tool-names.ts";
import type { PermissionContext, PermissionDecision, PermissionRule } from "./types.ts";
import { allow, ask, bypassAllow, deny, planDenial, ruleName } from "./verdicts.ts";

/** One file a call reads or writes. */
export type PathAccess = {
  kind: "read" | "write";
  /** The tool whose rules apply: the calling file tool, or Read / Write for a shell command's
   * files (so `Read(...)` and `Edit(...)` rules cover them). */
  tool: string;
  /** Absolute path; for a glob, the directory its literal part names. */
  path: string;
  /** Why the path is only known at run time, if so. */
  uncertain?: string;
  /** A glob: `path` bounds where it can point, not which files it names. */
  glob?: string;
  /** `path` is read with everything below it (`grep -r`, `rg`, `cp -r`, the Grep tool): the deny
   * and ask rules that could match inside it make it ask; only the ask rules when the tool leaves
   * denied files out of what it reads (`"ask"`, the Grep tool: see deniedFileFilter). */
  recursive?: boolean | "ask";
};

export type PathAccessOptions = {
  /** A Bash allow rule already allows the command whose argument this is: the location needs no
   * further approval (deny and ask rules still apply). */
  commandAllowed?: boolean;
};

/** Decides one file access: deny and ask rules, then mode, then allow rules and the working
 * directories. Edit allow rules also allow reading. */
export function pathDecision(access: PathAccess, ctx: PermissionContext, options: PathAccessOptions = {}): PermissionDecision {
  const shown = shownPath(access.path, ctx.cwd);
  const doing = access.kind === "read" ? `reading ${shown}` : `writing to ${shown}`;
  const target = { kind: "path", path: access.path } as const;

  const real = realPathOf(access.path);
  const denyRule = pathRule(ctx.rules.deny, access.tool, access.path, real, ctx);
  if (denyRule !== undefined) return deny(`${capitalize(doing)} is denied by ${ruleName("deny", denyRule)}.`, denyRule);
  const askRule = pathRule(ctx.rules.ask, access.tool, access.path, real, ctx);
  if (askRule !== undefined) return ask(`${capitalize(doing)} needs approval: ${ruleName("ask", askRule)} applies.`, askRule);
  if (access.recursive) {
    // What the rules keep from the file tools must not come out of a search of the whole tree.
    const inner = ruleWithin(access.recursive === "ask" ? ["ask"] : ["deny", "ask"], access.tool, [access.path, real], ctx);
    if (inner !== undefined) return ask(`${capitalize(doing)} and everything below it needs approval: ${inner} covers files inside it.`);
  }
  if (inAutoMemory(access.path, real, ctx)) return allow(`${capitalize(doing)} is allowed: it is in the auto memory directory, where the model keeps its notes.`);
  if (access.kind === "write" && ctx.mode === "plan") return planDenial(doing, ctx);

  const protectedBy = protectingRule(access.tool, ctx);
  const uncertain = access.uncertain ?? (access.glob !== undefined && protectedBy !== undefined
    ? `the pattern ${access.glob} could match a file that ${protectedBy} protects`
    : undefined);
  if (uncertain !== undefined) {
    if (ctx.mode === "bypassPermissions" && protectedBy === undefined) return bypassAllow();
    return ask(`${capitalize(doing)} needs approval: ${uncertain}.`);
  }
  if (ctx.mode === "bypassPermissions") return bypassAllow();

  const allowRule = findRule(ctx.rules.allow, access.tool, target, ctx) ?? (access.kind === "read" ? findRule(ctx.rules.allow, "Edit", target, ctx) : undefined);
  if (allowRule !== undefined) return allow(`Allowed by ${ruleName("allow", allowRule)}.`, allowRule);
  if (options.commandAllowed) return allow(`The allow rule for the command covers ${shown}.`);

  const inside = isInWorkingDirectories(access.path, ctx);
  if (!inside) {
    return ask(`${capitalize(doing)} needs approval: it is outside the working directories (${workingDirectoriesText(ctx)}).`);
  }
  if (!isReallyInWorkingDirectories(real, ctx)) {
    return ask(`${capitalize(doing)} needs approval: a symbolic link leads it to ${real}, outside the working directories (${workingDirectoriesText(ctx)}).`);
  }
  if (access.kind === "read") return allow(`Reading inside the working directories is allowed.`);
  if (ctx.mode === "acceptEdits") {
    if (decidesCommands(real) || decidesCommands(access.path) || makesRepository(access.path, ctx)) {
      return ask(`${capitalize(doing)} needs approval even in acceptEdits mode: the file decides which commands run (git's config and hooks, Claude's settings and hook scripts, editors' tasks, shell profiles, MCP servers).`);
    }
    return allow("acceptEdits mode allows edits inside the working directories.");
  }
  return ask(`${capitalize(doing)} needs approval in default mode; acceptEdits mode or an allow rule such as Edit(${ruleSuggestion(shown)}) would allow it.`);
}

/** Whether `file`, as written and where its links lead, is inside the auto memory directory. */
function inAutoMemory(file: string, real: string, ctx: PermissionContext): boolean {
  const dir = ctx.autoMemoryDir;
  return dir !== undefined && isWithin(file, dir) && isWithin(real, realPathOf(dir));
}

/** What searches leave out: for a tool (Grep, Glob), whether a deny rule keeps it from `file` (an
 * absolute path), as written or where its links lead. Read's rules cover searches, so a directory
 * search does not show a file that Read may not open. Undefined when no deny rule names a path. */
export function deniedFileFilter(ctx: PermissionContext): ((tool: string, file: string) => boolean) | undefined {
  if (!ctx.rules.deny.some((rule) => rule.specifier !== undefined)) return undefined;
  return (tool, file) => pathRule(ctx.rules.deny, tool, file, realPathOf(file), ctx) !== undefined;
}

/** The first of `rules` that covers `tool` at `path` as written or at `real`, where its links lead:
 * a link in the project must not open what a rule closes. */
function pathRule(rules: readonly PermissionRule[], tool: string, path: string, real: string, ctx: PermissionContext): PermissionRule | undefined {
  return findRule(rules, tool, { kind: "path", path }, ctx) ?? (real === path ? undefined : findRule(rules, tool, { kind: "path", path: real }, ctx));
}

/** A rule of `kinds` for `tool` that could match something at or below one of `dirs`, named for
 * messages. */
function ruleWithin(kinds: readonly ("deny" | "ask")[], tool: string, dirs: readonly string[], ctx: PermissionContext): string | undefined {
  for (const kind of kinds) {
    const rule = ctx.rules[kind].find(
      (r) =>
        r.specifier !== undefined &&
        ruleCoversTool(r.tool, tool) &&
        dirs.some((dir) => patternMayMatchWithin(r.specifier as string, { root: r.root, cwd: ctx.cwd, home: ctx.home }, dir)),
    );
    if (rule !== undefined) return ruleName(kind, rule);
  }
  return undefined;
}

/** A deny or ask rule with a path pattern that covers `tool`, named for messages. */
function protectingRule(tool: string, ctx: PermissionContext): string | undefined {
  for (const kind of ["deny", "ask"] as const) {
    const rule = ctx.rules[kind].find((r) => r.specifier !== undefined && ruleCoversTool(r.tool, tool));
    if (rule !== undefined) return ruleName(kind, rule);
  }
  return undefined;
}

function ruleSuggestion(shown: string): string {
  return shown.startsWith("/") ? `/${shown}` : `./${shown}`;
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
