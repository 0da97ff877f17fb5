// The fields of the initialize request that the Claude Agent SDK otherwise puts on Claude Code's
// command line (its disallowedToolsDelivery, settingsDelivery and pluginDelivery 'initialize'):
// `settings` and `plugins`, checked as --settings and --plugin-dir are (`disallowedTools` is a list
// of rules, run/agent-sdk/managed.ts's permissionRuleList). Each throws, naming the field, on a value that
// cannot be taken: the SDK then ends the session rather than run without what it asked for.
import { validateSettings } from "@harness/agent/config-checks";
import { isJsonObject } from "@harness/agent/json-text";
import { describeValue } from "../describe-value.ts";

/** Where messages about the request's settings say they come from. */
const INITIALIZE_SETTINGS = "the initialize request's settings";

/** The settings object of `value`, checked as --settings checks its JSON. */
export function initializeSettings(value: unknown): { file: string; settings: unknown } {
  if (!isJsonObject(value)) throw new Error(`initialize: settings must be an object of settings, as --settings takes, not ${describeValue(value)}`);
  const [problem] = validateSettings(value, INITIALIZE_SETTINGS).diagnostics;
  if (problem) throw new Error(`initialize: settings${problem.key === undefined ? "" : ` (${problem.key})`}: ${problem.message}`);
  return { file: INITIALIZE_SETTINGS, settings: value };
}

/** The directories of `value`'s local plugins (the SDK's {type: "local", path}), as given: they are
 * resolved where the run was started, as --plugin-dir's are. */
export function initializePlugins(value: unknown): string[] {
  if (!Array.isArray(value)) throw new Error(`initialize: plugins must be a list of plugins, such as [{"type": "local", "path": "./my-plugin"}], not ${describeValue(value)}`);
  return value.map((plugin, i) => {
    if (!isJsonObject(plugin)) throw new Error(`initialize: plugins[${i}] must be an object such as {"type": "local", "path": "./my-plugin"}, not ${describeValue(plugin)}`);
    const { type, path } = plugin;
    if (type !== "local") throw new Error(`initialize: plugins[${i}].type must be "local" (a plugin in a directory), not ${describeValue(type)}`);
    if (typeof path !== "string" || path.trim() === "") throw new Error(`initialize: plugins[${i}].path must be the plugin's directory, not ${describeValue(path)}`);
    return path;
  });
}
