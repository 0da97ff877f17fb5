import type { HookEffect } from "./hook-output.ts";
import type { HookResult, HookRunResult, PermissionDecision } from "./types.ts";

const STRENGTH: Record<PermissionDecision, number> = { allow: 1, ask: 2, deny: 3 };

/** Combines the effects of every hook of one event, given in configuration order. Any block
 * blocks; the strongest permission decision wins (deny > ask > allow), with the reasons of every
 * hook that gave it; the first `updatedInput` of an allow or ask is used, none on deny; the
 * `updatedPermissions` of every allow apply when the decision is allow; any `continue: false`
 * stops the run; any `retry` lets the model retry; the last replacement of a tool's output is
 * the one used. */
export function combineEffects(runs: readonly HookRunResult[], effects: readonly HookEffect[]): HookResult {
  const result: HookResult = { blocked: false, additionalContext: [], continue: true, userMessages: [], results: [] };
  const blockReasons: string[] = [];
  const stopReasons: string[] = [];
  let decisionReasons: string[] = [];
  for (let i = 0; i < effects.length; i++) {
    const effect = effects[i];
    result.results.push(effect.suppressOutput ? { ...runs[i], suppressOutput: true } : runs[i]);
    if (effect.block !== undefined) blockReasons.push(effect.block);
    if (effect.additionalContext !== undefined) result.additionalContext.push(effect.additionalContext);
    if (effect.retry) result.retry = true;
    if (effect.updatedOutput) result.updatedOutput = effect.updatedOutput;
    result.userMessages.push(...effect.userMessages);
    if (effect.stop) {
      result.continue = false;
      if (effect.stop.reason) stopReasons.push(effect.stop.reason);
    }
    const permission = effect.permission;
    if (!permission) continue;
    const current = result.permissionDecision;
    if (current === undefined || STRENGTH[permission.decision] > STRENGTH[current]) {
      result.permissionDecision = permission.decision;
      decisionReasons = [];
    }
    if (permission.decision === result.permissionDecision && permission.reason) decisionReasons.push(permission.reason);
    if (permission.updatedInput && permission.decision !== "deny" && result.updatedInput === undefined) {
      result.updatedInput = permission.updatedInput;
    }
    if (permission.updatedPermissions) result.updatedPermissions = [...(result.updatedPermissions ?? []), ...permission.updatedPermissions];
  }
  if (result.permissionDecision !== "allow") delete result.updatedPermissions;
  if (decisionReasons.length > 0) result.permissionDecisionReason = decisionReasons.join("\n");
  if (result.permissionDecision === "deny") {
    delete result.updatedInput;
    blockReasons.unshift(result.permissionDecisionReason ?? "Blocked by a PreToolUse hook");
  }
  if (blockReasons.length > 0) {
    result.blocked = true;
    result.blockReason = blockReasons.join("\n");
  }
  if (stopReasons.length > 0) result.stopReason = stopReasons.join("\n");
  return result;
}
