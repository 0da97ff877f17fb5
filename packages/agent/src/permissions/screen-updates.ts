// What of an approval's permission updates may be applied and kept, checked once where they are
// applied, whoever gave them (an approval, a PermissionRequest hook, a permission prompt tool): the
// rest is left out, each piece said once, naming who gave it and why.
import { bypassRefusal } from "./bypass.ts";
import type { PermissionContext } from "./types.ts";
import { destinationFile, readPermissionUpdates, type PermissionUpdate, type ReadUpdate, type UpdateWhere } from "./updates.ts";

/** `updates`, given by `by` (e.g. "a PermissionRequest hook"), without what may not be applied to
 * `permissions`: a setMode to bypassPermissions it may not enter, and rules that do not parse
 * (an added or replacing list left with none is dropped, so no file is rewritten for it). `kept`
 * is what is kept and handed on; `read`, the same read for applying (applyReadUpdates). */
export function screenUpdates(updates: readonly PermissionUpdate[], permissions: PermissionContext, where: UpdateWhere, by: string): { kept: PermissionUpdate[]; read: ReadUpdate[]; refused: string[] } {
  const read: ReadUpdate[] = [];
  const refused: string[] = [];
  for (const { update: change, rules, unparsed } of readPermissionUpdates(updates, where)) {
    if (change.type === "setMode") {
      const refusal = change.mode === "bypassPermissions" ? bypassRefusal(permissions) : undefined;
      if (refusal) refused.push(`The setMode bypassPermissions of ${by} is refused, the mode stays ${permissions.mode}: ${refusal}.`);
      else read.push({ update: change });
      continue;
    }
    if (change.type !== "addRules" && change.type !== "replaceRules") {
      read.push({ update: change });
      continue;
    }
    if (!unparsed || unparsed.length === 0) {
      read.push({ update: change, ...(rules && { rules }) });
      continue;
    }
    const place = destinationFile(change.destination, where) ?? "the session";
    for (const { text, error } of unparsed) refused.push(`The rule "${text}" of ${by} is left out of ${place}: ${error}`);
    const left = new Set(unparsed.map(({ value }) => value));
    if (rules && rules.length > 0) read.push({ update: { ...change, rules: change.rules.filter((value) => !left.has(value)) }, rules });
  }
  return { kept: read.map(({ update }) => update), read, refused };
}
