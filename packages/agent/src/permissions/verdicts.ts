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

export function planDenial(what: string): PermissionDecision {
  return deny(`Plan mode is on: ${what} is not allowed until the plan is accepted. Finish the plan and present it with ExitPlanMode first.`);
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
  return { ...decision, behavior: "deny", reason: `dontAsk mode is on, so what would need approval is denied. ${decision.reason}` };
}

export function quote(text: string, max = 200): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ");
  return `"${oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine}"`;
}
