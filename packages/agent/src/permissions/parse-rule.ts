import { BUILTIN_TOOL_NAMES, PATH_RULE_TOOLS } from "./tool-names.ts";
import type { PermissionContext, PermissionRule, Rule } from "./types.ts";

const TOOL_NAME = /^(?:[A-Z][A-Za-z0-9_]*|mcp__[A-Za-z0-9_.*-]+)$/;
/** A tool a program registered (RunAgentOptions.registeredTools) may have any name of letters, digits,
 * `_` and `-`; a built-in's name spelt in other cases ("bash") is taken for a mistake, not for one. */
const REGISTERED_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const BUILTIN_LOWER = new Set([...BUILTIN_TOOL_NAMES, "Task"].map((name) => name.toLowerCase()));

function isToolName(tool: string): boolean {
  return TOOL_NAME.test(tool) || (REGISTERED_NAME.test(tool) && !tool.toLowerCase().startsWith("mcp__") && !BUILTIN_LOWER.has(tool.toLowerCase()));
}

/** Parses Claude Code's rule syntax: `Tool`, `Tool(specifier)`; `\(` and `\)` in the specifier are
 * literal parentheses. `Tool()` and `Tool(*)` mean every use of the tool. Returns an error naming the
 * problem for text that cannot be a rule, so settings can report it instead of ignoring it. */
export function parseRule(text: string): Rule | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "empty permission rule" };
  const open = trimmed.indexOf("(");
  const tool = open === -1 ? trimmed : trimmed.slice(0, open).trim();
  if (!isToolName(tool)) {
    return {
      error: `"${tool}" is not a tool name: tool names start with an uppercase letter (Bash, Read, Edit, WebFetch …) or with mcp__`,
    };
  }
  if (open === -1) return { tool };
  if (!trimmed.endsWith(")")) return { error: `rule "${trimmed}" has no closing parenthesis` };
  const specifier = trimmed.slice(open + 1, -1).replace(/\\([()])/g, "$1").trim();
  if (specifier === "" || specifier === "*") return { tool };
  const problem = specifierProblem(tool, specifier);
  return problem === undefined ? { tool, specifier } : { error: problem };
}

function specifierProblem(tool: string, specifier: string): string | undefined {
  if (tool.startsWith("mcp__")) {
    return `MCP rules take no parentheses: write mcp__server or mcp__server__tool instead of "${tool}(${specifier})"`;
  }
  if (tool === "Bash" && /:\*./s.test(specifier)) {
    return `":*" only works at the end of a Bash rule, as in Bash(npm run:*); use * for a wildcard elsewhere`;
  }
  if (tool === "WebFetch") {
    const host = specifier.startsWith("domain:") ? specifier.slice("domain:".length) : undefined;
    if (host === undefined || host === "" || /[/:\s]/.test(host)) {
      return `WebFetch rules name a host as domain:<host>, e.g. WebFetch(domain:example.com), not "${specifier}"`;
    }
  }
  if (PATH_RULE_TOOLS.has(tool) && specifier.endsWith(":*")) {
    return `":*" is only for Bash rules; ${tool} rules take gitignore-style paths such as ${tool}(./.env*)`;
  }
  return undefined;
}

/** The canonical text of a rule. */
export function ruleText(rule: Rule): string {
  return rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier.replace(/[()]/g, "\\$&")})`;
}

/** Parses rule texts for one source. `root` is the base of `/path` patterns (see PermissionRule). */
export function toPermissionRules(
  texts: readonly string[],
  origin: { root: string; source?: string },
): { rules: PermissionRule[]; errors: { text: string; error: string }[] } {
  const rules: PermissionRule[] = [];
  const errors: { text: string; error: string }[] = [];
  for (const text of texts) {
    const parsed = parseRule(text);
    if ("error" in parsed) errors.push({ text, error: parsed.error });
    else rules.push({ ...parsed, text: text.trim(), root: origin.root, ...(origin.source === undefined ? {} : { source: origin.source }) });
  }
  return { rules, errors };
}

/** `permissions` with the rules `texts` added to its `kind` rules (a run's or a slash command's
 * own, on top of the settings'); the texts that do not parse are left out and come back in `errors`. */
export function withRules(
  permissions: PermissionContext,
  kind: "allow" | "ask" | "deny",
  texts: readonly string[],
  origin: { root: string; source: string },
): { permissions: PermissionContext; errors: { text: string; error: string }[] } {
  if (texts.length === 0) return { permissions, errors: [] };
  const { rules, errors } = toPermissionRules(texts, origin);
  return { permissions: { ...permissions, rules: { ...permissions.rules, [kind]: [...permissions.rules[kind], ...rules] } }, errors };
}
