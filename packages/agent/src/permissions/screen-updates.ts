// What of an approval's permission updates may be applied and kept, checked once where they are
// applied, whoever gave them (an approval, a PermissionRequest hook, a permission prompt tool): the
// rest is left out, each piece said once, naming who gave it and why.
import { bypassRefusal } from "./bypass.ts";
import { parseRule } from "./parse-rule.ts";
import type { PermissionContext } from "./types.ts";
import { destinationFile, ruleValueText, type PermissionUpdate, type UpdateWhere } from "./updates.ts";

/** `updates`, given by `by` (e.g. "a PermissionRequest hook"), without what may not be applied to
 * `permissions`: a setMode to bypassPermissions it may not enter, and rules that do not parse
 * (an added or replacing list left with none is dropped, so no file is rewritten for it). */
export function screenUpdates(updates: readonly PermissionUpdate[], permissions: PermissionContext, where: UpdateWhere, by: string): { kept: PermissionUpdate[]; refused: string[] } {
  const kept: PermissionUpdate[] = [];
  const refused: string[] = [];
  for (const change of updates) {
    if (change.type === "setMode") {
      const refusal = change.mode === "bypassPermissions" ? bypassRefusal(permissions) : undefined;
      if (refusal) refused.push(`The setMode bypassPermissions of ${by} is refused, the mode stays ${permissions.mode}: ${refusal}.`);
      else kept.push(change);
      continue;
    }
    if (change.type !== "addRules" && change.type !== "replaceRules") {
      kept.push(change);
      continue;
    }
    const place = destinationFile(change.destination, where) ?? "the session";
    const rules = change.rules.filter((rule) => {
      const parsed = parseRule(ruleValueText(rule));
      if ("error" in parsed) refused.push(`The rule "${ruleValueText(rule)}" of ${by} is left out of ${place}: ${parsed.error}`);
      return !("error" in parsed);
    });
    if (rules.length === change.rules.length) kept.push(change);
    else if (rules.length > 0) kept.push({ ...change, rules });
  }
  return { kept, refused };
}
