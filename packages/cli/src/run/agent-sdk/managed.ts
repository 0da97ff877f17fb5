// The Claude Agent SDK's `managedSettings`: the policy tier the program puts on the run (on the
// command line as --managed-settings, or in the initialize request). As Claude Code does, the run
// takes only what restricts from them (@harness/agent's parent tier: deny and ask rules, the
// allowManaged*Only locks, MCP server lists, the sandbox's tightening), as the managed settings'
// own; what else they hold is said and left out. A restriction that is malformed is refused, naming
// it, rather than the run going on without it.
import { parentTier } from "@harness/agent/settings-parent-tier";
import { isJsonObject } from "@harness/agent/json-text";
import type { Settings } from "@harness/agent";
import { describeValue } from "../describe-value.ts";
import { parseToolRules } from "../../tool-rules.ts";

/** The program's tier as the run takes it, and the line that says what of it was left out. */
export type SdkManaged = { settings: Settings; note?: string };

/** What restricts of `given` (the managed settings' JSON); throws, naming `where` and the key, on a
 * value that is not an object of settings or a restriction that is malformed. */
export function sdkManagedSettings(given: unknown, where: string): SdkManaged {
  if (!isJsonObject(given)) throw new Error(`${where}: the managed settings must be an object of settings, not ${describeValue(given)}`);
  const { permissions } = given;
  if (permissions !== undefined && !isJsonObject(permissions)) throw new Error(`${where}: permissions must be an object, such as {"deny": ["Bash"]}`);
  for (const kind of ["deny", "ask"] as const) {
    if (permissions?.[kind] !== undefined) permissionRuleList(permissions[kind], `${where}: permissions.${kind}`);
  }
  const tier = parentTier(given, where);
  const problem = tier.problems[0];
  if (problem) throw new Error(`${where}: ${problem.key === undefined ? "" : `${problem.key}: `}${problem.message}`);
  const one = tier.ignored.length === 1;
  const note =
    tier.ignored.length === 0
      ? undefined
      : `${where}: ${tier.ignored.join(", ")} ${one ? "is" : "are"} not applied: from the Agent SDK's managed settings the run takes only what restricts it, as Claude Code does`;
  return { settings: tier.settings, ...(note && { note }) };
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
