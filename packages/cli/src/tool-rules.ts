// The values of `harness run --allowedTools` and `--disallowedTools`: permission rules in the
// settings' syntax, several to a value (separated by commas or spaces outside parentheses, as
// Claude Code takes them: "Read,Bash(git log:*)"), checked here so that a mistyped rule is bad usage
// rather than a rule that silently never matches.
import { parseRule } from "@harness/agent/parse-rule";
import { BUILTIN_TOOL_NAMES } from "@harness/agent/tool-names";

/** The rules of `values`, or a one-line error naming the flag and the rule at fault. */
export function parseToolRules(flag: string, values: readonly string[]): string[] | string {
  const rules: string[] = [];
  for (const value of values) {
    for (const text of splitRules(value)) {
      const parsed = parseRule(text);
      if ("error" in parsed) return `${flag}: ${parsed.error}`;
      rules.push(text);
    }
  }
  if (rules.length === 0) return `${flag} needs at least one rule, such as Read or "Bash(npm test:*)"`;
  return rules;
}

/** "Read, Bash(git log:*)" → ["Read", "Bash(git log:*)"]: commas and spaces inside parentheses
 * (an escaped \( or \) counts as text) belong to the rule. */
function splitRules(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\" && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && depth > 0) depth--;
    if (depth === 0 && (c === "," || /\s/.test(c))) {
      if (current) out.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  if (current) out.push(current);
  return out;
}

/** Tool(…), mcp__…, or the name of a built-in tool: what a rule looks like, and a prompt seldom does
 * (a prompt may well be one other word). */
export function looksLikeRule(text: string): boolean {
  return BUILTIN_TOOL_NAMES.has(text) || /^(?:[A-Z][A-Za-z0-9_]*\(.*\)|mcp__\S+)$/s.test(text);
}
