import type { PermissionContext, PermissionDecision, PermissionRule } from "./types.ts";

export function allow(reason: string, rule?: PermissionRule): PermissionDecision {
  return rule === undefined ? { behavior: "allow", reason } : { behavior: "allow", reason, rule: rule.text };
}

export function ask(reason: string, rule?: PermissionRule): PermissionDecision {
  return rule === undefined ? { behavior: "ask", reason } : { behavior: "ask", reason, rule: rule.text };
}

export function deny(reason: string, rule?: PermissionRule): PermissionDecision {
  return rule === undefined ? { behavior: "deny", reason } : { behavior: "deny", reason, rule: rule.text };
}

/** `the deny rule "Bash(rm:*)" from /p/.claude/settings.json` */
export function ruleName(kind: "allow" | "ask" | "deny", rule: PermissionRule): string {
  return `the ${kind} rule "${rule.text}"${rule.source === undefined ? "" : ` from ${rule.source}`}`;
}

/** Plan mode's refusal of `what` (a write, a command, a tool). The main agent leaves plan mode by
 * presenting a plan the user approves; a sub-agent in plan mode only reads, and reports. */
export function planDenial(what: string, ctx: PermissionContext): PermissionDecision {
  if (ctx.subagent) return deny(`This agent only reads (plan mode is on): ${what} is not allowed. Give what you found, or your plan, in your final reply instead.`);
  return deny(`Plan mode is on: ${what} is not allowed until the user approves a plan. Finish researching, then present your plan with ExitPlanMode.`);
}

export function bypassAllow(): PermissionDecision {
  return allow("Allowed: bypassPermissions mode is on and no deny or ask rule applies.");
}

/** Deny beats ask beats allow; the first decision of the winning kind speaks. */
export function strongest(decisions: readonly PermissionDecision[]): PermissionDecision | undefined {
  return decisions.find((d) => d.behavior === "deny") ?? decisions.find((d) => d.behavior === "ask") ?? decisions[0];
}

export function applyDontAsk(decision: PermissionDecision, ctx: PermissionContext): PermissionDecision {
  if (ctx.mode !== "dontAsk" || decision.behavior !== "ask") return decision;
  return { ...decision, behavior: "deny", reason: `dontAsk mode is on, so what would need approval is denied. ${decision.reason}`, dontAsk: true };
}

export function quote(text: string, max = 200): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ");
  return `"${oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine}"`;
}
