import { commandUnits } from "./bash-units.ts";
import type { CommandUnit } from "./bash-units.ts";
import { findRule } from "./match-rule.ts";
import { pathDecision } from "./path-access.ts";
import type { PathAccess } from "./path-access.ts";
import { argumentDir, resolveToolPath } from "./paths.ts";
import type { Word } from "./shell-types.ts";
import { ruleCoversTool } from "./tool-names.ts";
import type { PermissionContext, PermissionDecision } from "./types.ts";
import { allow, ask, bypassAllow, deny, planDenial, quote, ruleName, strongest } from "./verdicts.ts";

/** Decides a Bash command line: every command in it (see commandUnits) must be allowed; any denied
 * part denies the whole, otherwise any part that asks makes the whole ask.
 *
 * - Rules match each command without its redirections; wrappers (env, timeout, nice, nohup, time,
 *   stdbuf, command, builtin, exec) and harmless `NAME=value` prefixes are stripped first. Deny and
 *   ask rules also see the command with quotes removed and with `/bin/rm` as `rm`.
 * - Read-only commands run in default, acceptEdits and plan mode without a rule: ls, cat, head,
 *   tail, wc, stat, du, diff, cmp, cut, echo, printf (not -v), pwd, true, false, whoami, which,
 *   basename, dirname, realpath, tr, test/[/[[ (not -v or arithmetic), cd/pushd/popd, grep/egrep/
 *   fgrep, rg (not --pre), find (not -exec/-ok/-delete/-fprint…), git status/diff/log/show (not
 *   --output, --ext-diff, --no-index). The files they read must be inside the working directories.
 * - A directory read with everything below it (grep -r, rg, diff -r, cp -r) asks when a Read deny
 *   or ask rule could match something inside it, in every mode: the rule's files would be read too.
 * - git after a cd in the same line is not read-only: the directory may hold a repository whose
 *   config runs programs.
 * - Files written by redirections (`>`, `>>`, `&>`), tee, mkdir, touch, mv, cp, rm, rmdir and find
 *   are checked like edits of those files (Edit rules, mode); acceptEdits lets mkdir, touch, mv,
 *   cp and tee run inside the working directories.
 * - bash/sh -c, eval, sudo, xargs, find -exec, trap actions and alias values: the commands they
 *   run are checked too. A command name that is a glob or brace expansion cannot be checked.
 * - A line that cannot be parsed with certainty asks (plan mode: denied); it is allowed only in
 *   bypassPermissions mode when no deny or ask rule could be dodged. */
export function decideBash(command: string, ctx: PermissionContext): PermissionDecision {
  const parsed = commandUnits(command);
  if (!parsed.ok) return unparsable(command, parsed.error, ctx);
  if (parsed.units.length === 0) return allow("The command runs nothing.");
  // After a cd, relative paths in the commands that follow no longer start at cwd.
  const firstCd = parsed.units.findIndex((unit) => unit.effect.changesDir);
  const decisions = parsed.units.flatMap((unit, i) => unitDecisions(unit, ctx, firstCd !== -1 && i > firstCd));
  const decision = strongest(decisions) as PermissionDecision;
  if (decision.behavior !== "allow" || parsed.units.length === 1) return decision;
  return allow(`Every part of the command is allowed: ${parsed.units.map((unit) => quote(unit.text, 60)).join(", ")}.`);
}

function unitDecisions(given: CommandUnit, ctx: PermissionContext, cwdUncertain: boolean): PermissionDecision[] {
  // After a cd, git may find a repository the agent wrote itself (a directory with HEAD, config,
  // objects and refs is one), whose config runs programs even for git status.
  const unit = cwdUncertain && given.effect.repository
    ? { ...given, effect: { ...given.effect, readOnly: false }, problem: given.problem ?? "after the command line changes directory, git may use a repository whose configuration runs programs" }
    : given;
  const shown = quote(unit.text);
  const denyRule = findRule(ctx.rules.deny, "Bash", { kind: "command", forms: unit.denyForms }, ctx);
  if (denyRule !== undefined) return [deny(`The command ${shown} is denied by ${ruleName("deny", denyRule)}.`, denyRule)];

  const allowRule = findRule(ctx.rules.allow, "Bash", { kind: "command", forms: unit.allowForms }, ctx);
  const decisions = [commandDecision(unit, ctx, allowRule)];
  const commandAllowed = allowRule !== undefined;
  const { effect } = unit;
  for (const word of effect.reads) decisions.push(pathDecision(access(word, "read", ctx, cwdUncertain), ctx, { commandAllowed }));
  for (const word of effect.searches) decisions.push(pathDecision({ ...access(word, "read", ctx, cwdUncertain), recursive: true }, ctx, { commandAllowed }));
  for (const word of effect.writes) decisions.push(pathDecision(access(word, "write", ctx, cwdUncertain), ctx, { commandAllowed }));
  for (const word of unit.redirectReads) decisions.push(pathDecision(access(word, "read", ctx, cwdUncertain), ctx));
  for (const word of unit.redirectWrites) decisions.push(pathDecision(access(word, "write", ctx, cwdUncertain), ctx));
  return decisions;
}

function commandDecision(unit: CommandUnit, ctx: PermissionContext, allowRule: ReturnType<typeof findRule>): PermissionDecision {
  const shown = quote(unit.text);
  const askRule = findRule(ctx.rules.ask, "Bash", { kind: "command", forms: unit.denyForms }, ctx);
  if (askRule !== undefined) return ask(`Running ${shown} needs approval: ${ruleName("ask", askRule)} applies.`, askRule);
  const { effect } = unit;
  if (ctx.mode === "bypassPermissions") {
    if (unit.problem !== undefined && hasCommandRules(ctx)) return ask(`Running ${shown} needs approval: ${unit.problem}, so the deny and ask rules cannot be checked.`);
    return bypassAllow();
  }
  if (ctx.mode === "plan") {
    if (effect.transparent || (effect.readOnly && unit.problem === undefined)) return allow(`${shown} only reads, which plan mode allows.`);
    return planDenial(`running ${shown}`, ctx);
  }
  if (allowRule !== undefined) return allow(`Allowed by ${ruleName("allow", allowRule)}.`, allowRule);
  if (effect.transparent) return allow(`${shown} only runs the commands it contains, which are checked one by one.`);
  if (unit.problem !== undefined) return ask(`Running ${shown} needs approval: ${unit.problem}.`);
  if (effect.readOnly) return allow(`${shown} is a read-only command.`);
  if (effect.fileOp && ctx.mode === "acceptEdits") return allow(`acceptEdits mode allows ${shown} for files inside the working directories.`);
  return ask(`Running ${shown} needs approval: no allow rule matches it (mode: ${ctx.mode}). A rule such as Bash(${suggestion(unit)}) would allow it.`);
}

function suggestion(unit: CommandUnit): string {
  const words = unit.allowForms[unit.allowForms.length - 1].split(" ");
  return words.length > 2 ? `${words.slice(0, 2).join(" ")}:*` : words.join(" ");
}

/** Where a word of a command points, as a file access. */
function access(word: Word, kind: "read" | "write", ctx: PermissionContext, cwdUncertain: boolean): PathAccess {
  const tool = kind === "read" ? "Read" : "Write";
  const value = word.value;
  if (word.dynamic) {
    // Still matched against deny and ask rules at its most likely location.
    const likely = value.replace(/^\$(?:HOME\b|\{HOME\})/, ctx.home);
    return { kind, tool, path: resolveToolPath(likely, argumentDir(ctx), ctx.home), uncertain: `${word.raw} is only known at run time` };
  }
  const resolved = resolveToolPath(value, argumentDir(ctx), ctx.home);
  const relative = !value.startsWith("/") && value !== "~" && !value.startsWith("~/");
  if (relative && cwdUncertain) {
    return { kind, tool, path: resolved, uncertain: `the command line changes directory, so ${word.raw} cannot be located beforehand` };
  }
  if (!word.glob) return { kind, tool, path: resolved };
  const segments = value.split("/");
  const firstGlob = segments.findIndex((segment) => /[*?[{]/.test(segment));
  const literal = segments.slice(0, firstGlob).join("/");
  const pattern = segments.slice(firstGlob);
  if (/[{}]/.test(value) || pattern.includes("..")) {
    return { kind, tool, path: resolved, uncertain: `${word.raw} expands to paths only known at run time` };
  }
  const dir = literal === "" ? (value.startsWith("/") ? "/" : argumentDir(ctx)) : resolveToolPath(literal, argumentDir(ctx), ctx.home);
  return { kind, tool, path: dir, glob: word.raw };
}

/** Whether any rule could be dodged by a command whose effect is unknown. */
export function hasCommandRules(ctx: PermissionContext): boolean {
  return [...ctx.rules.deny, ...ctx.rules.ask].some(
    (rule) => rule.specifier !== undefined && (rule.tool === "Bash" || ruleCoversTool(rule.tool, "Read") || ruleCoversTool(rule.tool, "Write")),
  );
}

/** A command line that cannot be split safely: never allowed on the strength of rules it might
 * dodge. */
function unparsable(command: string, error: string, ctx: PermissionContext): PermissionDecision {
  const whole = command.trim();
  const denyRule = findRule(ctx.rules.deny, "Bash", { kind: "command", forms: [whole] }, ctx);
  if (denyRule !== undefined) return deny(`The command is denied by ${ruleName("deny", denyRule)}.`, denyRule);
  const askRule = findRule(ctx.rules.ask, "Bash", { kind: "command", forms: [whole] }, ctx);
  if (askRule !== undefined) return ask(`The command needs approval: ${ruleName("ask", askRule)} applies.`, askRule);
  if (ctx.mode === "plan") return planDenial("running a command that cannot be checked as read-only", ctx);
  if (ctx.mode === "bypassPermissions" && !hasCommandRules(ctx)) return bypassAllow();
  return ask(`The command could not be checked safely (${error}), so it needs approval.`);
}
