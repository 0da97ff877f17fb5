import { compileCommandPattern } from "./command-pattern.ts";
import type { CommandMatcher } from "./command-pattern.ts";
import { compilePathPattern } from "./path-pattern.ts";
import type { PathMatcher } from "./path-pattern.ts";
import { ruleCoversTool, ruleNamesTool } from "./tool-names.ts";
import type { PermissionContext, PermissionRule } from "./types.ts";

/** What a rule's specifier is matched against, by tool kind. */
export type RuleTarget =
  | { kind: "command"; forms: readonly string[] }
  | { kind: "path"; path: string }
  | { kind: "host"; host: string }
  | { kind: "name"; name: string; ignoreCase?: boolean }
  | { kind: "none" };

/** The first rule in `rules` that covers `tool` and, if it has a specifier, matches `target`. */
export function findRule(rules: readonly PermissionRule[], tool: string, target: RuleTarget, ctx: PermissionContext): PermissionRule | undefined {
  for (const rule of rules) {
    if (!ruleCoversTool(rule.tool, tool)) continue;
    if (rule.specifier === undefined || specifierMatches(rule, target, ctx)) return rule;
  }
  return undefined;
}

/** Whether any rule in `rules` covers `tool` (with or without a specifier). */
export function anyRuleFor(rules: readonly PermissionRule[], tool: string): boolean {
  return rules.some((rule) => ruleCoversTool(rule.tool, tool));
}

/** The tool-wide deny rule (`WebFetch`, `mcp__server`) that names `tool` itself, if any: the model
 * is not offered such a tool at all (see ruleNamesTool). */
export function wholeToolDenial(ctx: PermissionContext, tool: string): PermissionRule | undefined {
  return ctx.rules.deny.find((rule) => rule.specifier === undefined && ruleNamesTool(rule.tool, tool));
}

function specifierMatches(rule: PermissionRule, target: RuleTarget, ctx: PermissionContext): boolean {
  const specifier = rule.specifier as string;
  switch (target.kind) {
    case "command": {
      const matcher = commandMatcher(rule, specifier);
      return target.forms.some(matcher);
    }
    case "path":
      return pathMatcher(rule, specifier, ctx)(target.path);
    case "host":
      return hostMatches(specifier, target.host);
    case "name":
      if (target.ignoreCase) return compileCommandPattern(specifier.toLowerCase())(target.name.toLowerCase());
      return commandMatcher(rule, specifier)(target.name);
    case "none":
      return false;
  }
}

const commandMatchers = new WeakMap<PermissionRule, CommandMatcher>();

function commandMatcher(rule: PermissionRule, specifier: string): CommandMatcher {
  let matcher = commandMatchers.get(rule);
  if (matcher === undefined) {
    matcher = compileCommandPattern(specifier);
    commandMatchers.set(rule, matcher);
  }
  return matcher;
}

const pathMatchers = new WeakMap<PermissionRule, { key: string; matcher: PathMatcher }>();

function pathMatcher(rule: PermissionRule, specifier: string, ctx: PermissionContext): PathMatcher {
  const key = `${ctx.cwd}\0${ctx.home}`;
  const cached = pathMatchers.get(rule);
  if (cached !== undefined && cached.key === key) return cached.matcher;
  const matcher = compilePathPattern(specifier, { root: rule.root, cwd: ctx.cwd, home: ctx.home });
  pathMatchers.set(rule, { key, matcher });
  return matcher;
}

/** `domain:example.com` matches that host only; `domain:*.example.com` matches its subdomains. */
function hostMatches(specifier: string, host: string): boolean {
  if (!specifier.startsWith("domain:")) return false;
  const domain = specifier.slice("domain:".length).toLowerCase().replace(/\.$/, "");
  if (domain.startsWith("*.")) return host.endsWith(domain.slice(1));
  return host === domain;
}
