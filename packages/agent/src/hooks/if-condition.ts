import { homedir } from "node:os";
import { commandUnits } from "../permissions/bash-units.ts";
import { decide } from "../permissions/decide.ts";
import { parseRule } from "../permissions/parse-rule.ts";
import { canonicalToolName, ruleNamesTool } from "../permissions/tool-names.ts";
import type { PermissionContext, PermissionRule, ToolCall } from "../permissions/types.ts";
import type { HookCondition, HookEventName } from "./types.ts";

/** The events a hook's `if` is evaluated on: those about one tool call. On any other event a hook
 * with an `if` never runs, as in Claude Code. */
export const TOOL_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure"]);

/** `value` as a hook's `if` (one permission rule, in the syntax of the settings' permissions), or
 * why it cannot be one. */
export function parseIfCondition(value: unknown): HookCondition | { problem: string } {
  if (typeof value !== "string" || value.trim() === "") {
    return { problem: `must be one permission rule such as "Bash(git commit *)" or "Edit(*.ts)", got ${JSON.stringify(value) ?? typeof value}` };
  }
  const parsed = parseRule(value);
  if ("error" in parsed) return { problem: `${JSON.stringify(value)} is not a permission rule: ${parsed.error}` };
  // The rule parser would read `Bash(git *) && Edit(*.ts)` as one Bash pattern no command meets.
  if (SECOND_RULE.test(value)) return { problem: `${JSON.stringify(value)} holds more than one rule; an "if" takes one: give each rule a hook of its own` };
  return { text: value.trim(), rule: parsed };
}

/** A closing parenthesis followed by what starts another rule (`&&`, `||` or `,` optional). */
const SECOND_RULE = /\)\s*(?:&&|\|\||,)?\s*(?:[A-Z][A-Za-z0-9_]*|mcp__[A-Za-z0-9_.*-]+)\s*\(/;

/** Where a call's relative paths start (its agent's cwd) and where a rule's `/path` starts (the
 * project). */
export type IfScope = { cwd: string; projectDir: string; home?: string };

/** Whether the tool call is one the hook whose `if` is `condition` starts for. The rule names one
 * tool (Edit(*.ts) is not met by a Write; mcp__server by each of the server's tools); past the name
 * it is matched as a deny rule of the same text would be (decide), so a Bash rule is met when any
 * command of the line is (`npm test && git push`, `echo $(git log)`, `FOO=1 git push`), and a path
 * rule where the call's file is. A Bash line is taken to meet a rule with a command pattern
 * whenever what it runs cannot all be read beforehand: see bashUncertain. */
export function callMeetsIf(condition: HookCondition, call: ToolCall, scope: IfScope): boolean {
  const { rule: parsed, text } = condition;
  if (!ruleNamesTool(parsed.tool, call.name)) return false;
  if (parsed.specifier === undefined) return true;
  if (canonicalToolName(call.name) === "Bash" && bashUncertain(parsed.specifier, call.input.command)) return true;
  const rule: PermissionRule = { ...parsed, text, root: scope.projectDir };
  const ctx: PermissionContext = {
    mode: "default",
    rules: { allow: [], ask: [], deny: [rule] },
    cwd: scope.cwd,
    home: scope.home ?? homedir(),
    additionalDirectories: [],
  };
  const decision = decide(call, ctx);
  return decision.behavior === "deny" && decision.rule === rule.text;
}

/** Whether a Bash call may run what `specifier` names though no command of it is seen to: the
 * hook then starts, for an `if` is a filter that errs on the side of running the hook. So: a call
 * with no command line, a line that cannot be parsed, a command only known at run time (`$CMD
 * push`, a dangerous `PATH=`), and, for a pattern naming more than the program (`git push *`), a
 * line with `$(…)`, backticks or `$VAR`, whose values could spell what the pattern names (`git
 * push $REMOTE` against `git push origin *`). */
function bashUncertain(specifier: string, command: unknown): boolean {
  if (typeof command !== "string") return true;
  const split = commandUnits(command);
  if (!split.ok || split.units.some((unit) => unit.problem !== undefined)) return true;
  const beyondProgram = /\s/.test(specifier.trim().replace(/(?::\*|\s\*)$/, "").trim());
  return beyondProgram && /\$[({A-Za-z_]|`/.test(command);
}
