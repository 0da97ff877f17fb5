import path from "node:path";
import { runsInSandbox } from "../sandbox/policy.ts";
import { commandUnits } from "./bash-units.ts";
import { decideBash, hasCommandRules } from "./decide-bash.ts";
import { findRule } from "./match-rule.ts";
import type { RuleTarget } from "./match-rule.ts";
import { hostHiddenDenial } from "./host-hidden.ts";
import { pathDecision } from "./path-access.ts";
import type { PathAccess } from "./path-access.ts";
import { argumentDir, resolveToolPath } from "./paths.ts";
import { NO_APPROVAL_TOOLS, READ_TOOLS, WRITE_TOOLS, canonicalToolName } from "./tool-names.ts";
import type { PermissionContext, PermissionDecision, ToolCall } from "./types.ts";
import { allow, applyDontAsk, ask, bypassAllow, deny, planDenial, quote, ruleName, strongest } from "./verdicts.ts";

/** Decides whether a tool call may run, needs the user's approval, or is refused. Pure: no I/O.
 *
 * Order: deny rules, then ask rules, then the mode, then allow rules, then the defaults below.
 * Deny beats ask beats allow wherever several rules match. Defaults:
 * - Read, Glob, Grep, NotebookRead, LS, LSP: allowed inside the working directories (cwd and
 *   additionalDirectories); anywhere else they ask.
 * - Edit, MultiEdit, Write, NotebookEdit: ask in default mode; allowed inside the working
 *   directories in acceptEdits mode; denied in plan mode.
 * - Bash: see decideBash — read-only commands run, everything else asks (plan mode: denied).
 * - TodoWrite, ToolSearch, BashOutput, KillShell, WebSearch, Task, TaskOutput, TaskStop, Skill, ListMcpResourcesTool,
 *   ReadMcpResourceTool: allowed.
 * - ExitPlanMode: in plan mode it asks (the user approves the plan, unless an allow rule names
 *   ExitPlanMode); in any other mode it is allowed (and says there is no plan to approve).
 * - WebFetch, MCP tools and any other tool: ask unless an allow rule matches.
 * bypassPermissions allows everything that no deny or ask rule covers; dontAsk turns every "ask"
 * into "deny". With the sandbox on, a Bash command it runs is allowed where only the defaults
 * above would ask (see sandboxed). */
export function decide(call: ToolCall, ctx: PermissionContext): PermissionDecision {
  return applyDontAsk(decideCall(call, ctx), ctx);
}

function decideCall(call: ToolCall, ctx: PermissionContext): PermissionDecision {
  const name = canonicalToolName(call.name);
  if (name === "Bash") {
    const command = call.input.command;
    if (typeof command !== "string") return ruleOnly(call, ctx, "the call has no command");
    return sandboxed(decideBash(command, ctx), command, call.input.dangerouslyDisableSandbox, ctx);
  }
  if (WRITE_TOOLS.has(name) || READ_TOOLS.has(name)) {
    const accesses = fileAccesses(call, ctx);
    if (accesses.length === 0) return ruleOnly(call, ctx, "the call names no file");
    const hidden = hostHiddenDenial(accesses, ctx, name === "Glob" || name === "Grep");
    if (hidden) return hidden;
    return strongest(accesses.map((access) => pathDecision(access, ctx))) as PermissionDecision;
  }
  return decideOther(call, name, ctx);
}

/** With the sandbox on:
 * - a command the sandbox runs needs no approval where only the defaults asked: the sandbox keeps
 *   it to the working directories and the allowed domains. Rules still apply (a deny or ask rule
 *   decided with `rule` set), and so does plan mode, which denies;
 * - a command that runs outside it needs approval even where the defaults would let it run (a
 *   "read-only" git status, say): the commands the sandbox let run unasked may have written what
 *   it reads (a nested repository's config, a package's scripts). A call that asks to leave the
 *   sandbox always asks; an excluded command runs unasked only on an allow rule. Deny decisions
 *   and bypassPermissions stand. */
function sandboxed(decision: PermissionDecision, command: string, disable: unknown, ctx: PermissionContext): PermissionDecision {
  const policy = ctx.sandbox;
  if (!policy || decision.behavior === "deny") return decision;
  if (!runsInSandbox(command, disable === true, policy)) {
    const leaving = disable === true;
    const why = leaving ? "The command asks to run outside the sandbox." : "The settings run this command outside the sandbox (sandbox.excludedCommands).";
    if (decision.behavior === "ask") return { ...decision, reason: `${why} ${decision.reason}` };
    if (ctx.mode === "bypassPermissions" || (!leaving && decision.rule !== undefined)) return decision;
    return ask(`${why} Outside it, what other commands wrote unasked could make it do more than it says, so it needs approval.`);
  }
  if (decision.behavior !== "ask" || decision.rule !== undefined || !policy.autoAllow || policy.unavailable !== undefined) return decision;
  // A line that cannot be split, or a command in it whose program is known only at run time
  // (`c=curl; $c …`, `… | xargs`), could dodge a command rule: as in bypassPermissions, it is
  // allowed only where there is none to dodge.
  if (hasCommandRules(ctx) && !checkable(command)) return decision;
  return allow("The command runs in the sandbox, which keeps it to the working directories and the allowed network domains.");
}

/** Whether every command of the line is known before it runs (see CommandUnit.problem). */
function checkable(command: string): boolean {
  const split = commandUnits(command);
  return split.ok && split.units.every((unit) => unit.problem === undefined);
}

/** The files a file tool call touches, by Claude Code's input names. */
function fileAccesses(call: ToolCall, ctx: PermissionContext): PathAccess[] {
  const input = call.input;
  const kind = WRITE_TOOLS.has(canonicalToolName(call.name)) ? "write" : "read";
  const at = (value: unknown): PathAccess[] =>
    typeof value === "string" && value !== "" ? [{ kind, tool: call.name, path: resolveToolPath(value, argumentDir(ctx), ctx.home) }] : [];
  switch (call.name) {
    case "Glob": {
      const dir = typeof input.path === "string" && input.path !== "" ? input.path : ".";
      return [...at(dir), ...globBase(input.pattern, resolveToolPath(dir, argumentDir(ctx), ctx.home), call.name)];
    }
    case "Grep":
      // It reads every file below its path; those a deny rule covers are left out of its results.
      return at(typeof input.path === "string" && input.path !== "" ? input.path : ".").map((access) => ({ ...access, recursive: "ask" as const }));
    case "LS":
      return at(typeof input.path === "string" && input.path !== "" ? input.path : ".");
    case "NotebookEdit":
    case "NotebookRead":
      return at(input.notebook_path);
    case "LSP":
      return at(input.filePath);
    default:
      return at(input.file_path);
  }
}

/** A Glob pattern that climbs out of (`../*`) or replaces (`/etc/*`) its search directory reads
 * where its literal part points. */
function globBase(pattern: unknown, dir: string, tool: string): PathAccess[] {
  if (typeof pattern !== "string") return [];
  // Braces can name other directories ({..,x}/*, {/etc,x}/*): where they lead is left to approval.
  if (/\{[^}]*(\.\.|\/)/.test(pattern) || (pattern.includes("{") && pattern.includes(".."))) {
    return [{ kind: "read", tool, path: dir, uncertain: `the braces in the pattern ${pattern} may lead out of the directory it searches` }];
  }
  const segments = pattern.split("/");
  if (!pattern.startsWith("/") && !segments.includes("..")) return [];
  const firstGlob = segments.findIndex((segment) => /[*?[{]/.test(segment));
  const literal = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  const base = path.resolve(dir, literal.join("/") || "/");
  if (firstGlob !== -1 && segments.slice(firstGlob).includes("..")) {
    return [{ kind: "read", tool, path: base, uncertain: `the pattern ${pattern} climbs out of the directory it names` }];
  }
  return [{ kind: "read", tool, path: base }];
}

function decideOther(call: ToolCall, name: string, ctx: PermissionContext): PermissionDecision {
  const target = ruleTarget(call, name);
  const subject = name === "WebFetch" && target.kind === "host" ? `Fetching ${quote(String(call.input.url))}` : `Using ${name}`;
  const denyRule = findRule(ctx.rules.deny, call.name, target, ctx);
  if (denyRule !== undefined) return deny(`${subject} is denied by ${ruleName("deny", denyRule)}.`, denyRule);
  const askRule = findRule(ctx.rules.ask, call.name, target, ctx);
  if (askRule !== undefined) return ask(`${subject} needs approval: ${ruleName("ask", askRule)} applies.`, askRule);
  if (ctx.mode === "bypassPermissions") return bypassAllow();
  const allowRule = findRule(ctx.rules.allow, call.name, target, ctx);
  if (allowRule !== undefined) return allow(`Allowed by ${ruleName("allow", allowRule)}.`, allowRule);
  if (name === "ExitPlanMode" && ctx.mode === "plan") return ask("Leaving plan mode needs the user's approval of the plan.");
  if (NO_APPROVAL_TOOLS.has(name)) return allow(`${name} changes no files and runs no commands, so it needs no approval.`);
  if (name === "WebFetch") {
    if (target.kind !== "host") return ask(`Fetching ${quote(String(call.input.url ?? ""))} needs approval: it is not a valid http(s) URL.`);
    return ask(`${subject} needs approval: no allow rule such as WebFetch(domain:${target.host}) matches it.`);
  }
  return ask(`${subject} needs approval: no allow rule matches ${name}.`);
}

function ruleTarget(call: ToolCall, name: string): RuleTarget {
  const input = call.input;
  if (name === "WebFetch") {
    const host = hostOf(input.url);
    return host === undefined ? { kind: "none" } : { kind: "host", host };
  }
  // Named as the tools find them: Task takes the agent's name in any case (findAgent), Skill takes
  // it with a leading slash; both trim it.
  if (name === "Task" && typeof input.subagent_type === "string") return { kind: "name", name: input.subagent_type.trim(), ignoreCase: true };
  if (name === "Skill") {
    const skill = typeof input.skill === "string" ? input.skill : typeof input.command === "string" ? input.command : undefined;
    if (skill !== undefined) return { kind: "name", name: skill.trim().replace(/^\//, "") };
  }
  return { kind: "none" };
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    return parsed.hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/** A call whose input cannot be checked: tool-wide rules and the mode decide; it never runs on
 * the strength of rules it could dodge. */
function ruleOnly(call: ToolCall, ctx: PermissionContext, problem: string): PermissionDecision {
  const target = { kind: "none" } as const;
  const denyRule = findRule(ctx.rules.deny, call.name, target, ctx);
  if (denyRule !== undefined) return deny(`Using ${call.name} is denied by ${ruleName("deny", denyRule)}.`, denyRule);
  if (ctx.mode === "plan" && !READ_TOOLS.has(canonicalToolName(call.name))) return planDenial(`using ${call.name}`, ctx);
  return ask(`Using ${call.name} needs approval: ${problem}.`);
}
