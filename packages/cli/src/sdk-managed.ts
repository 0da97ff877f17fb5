// The Claude Agent SDK's `managedSettings`: restrictions the program puts on the run as a policy
// tier (on the command line as --managed-settings, or in the initialize request). Of them
// `harness run` enforces permissions.deny and permissions.ask, as rules on top of every settings
// file's; anything else they hold is refused, naming it, rather than the run going on without a
// restriction it was given.
import { isJsonObject } from "@harness/agent/json-text";
import { describeValue } from "./describe-value.ts";
import { parseToolRules } from "./tool-rules.ts";

/** The keys of managed settings that are applied here. */
const APPLIED = "permissions.deny and permissions.ask";

/** The deny and ask rules of `given` (the managed settings' JSON); throws, naming `where` and the keys, when
 * it holds what cannot be enforced here or is not an object. */
export function sdkManagedRules(given: unknown, where: string): { deny: string[]; ask: string[] } {
  if (!isJsonObject(given)) throw new Error(`${where}: the managed settings must be an object of settings, not ${describeValue(given)}`);
  const { permissions, ...rest } = given;
  const others = Object.keys(rest).filter((key) => key !== "$schema");
  if (permissions !== undefined && !isJsonObject(permissions)) throw new Error(`${where}: permissions must be an object, such as {"deny": ["Bash"]}`);
  const { deny, ask, ...more } = permissions ?? {};
  others.push(...Object.keys(more).map((key) => `permissions.${key}`));
  if (others.length > 0) {
    throw new Error(
      `${where}: harness run cannot enforce ${others.join(", ")} of the Agent SDK's managed settings (it applies only ${APPLIED} from them); put ${others.length === 1 ? "it" : "them"} in /etc/claude-code/managed-settings.json, or leave ${others.length === 1 ? "it" : "them"} out`,
    );
  }
  return { deny: permissionRuleList(deny ?? [], `${where}: permissions.deny`), ask: permissionRuleList(ask ?? [], `${where}: permissions.ask`) };
}

/** The rules of `value`, a list of permission rules in the settings' syntax (as --disallowedTools
 * takes them); throws, naming `where`, on anything else or a rule that does not parse. */
export function permissionRuleList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((rule) => typeof rule === "string")) throw new Error(`${where} must be a list of permission rules, such as ["Bash", "Read(./secrets/**)"], not ${describeValue(value)}`);
  if (value.length === 0) return [];
  const rules = parseToolRules(where, value);
  if (typeof rules === "string") throw new Error(rules);
  return rules;
}
