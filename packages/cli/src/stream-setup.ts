// The fields of the initialize request that the Claude Agent SDK otherwise puts on Claude Code's
// command line (its disallowedToolsDelivery, settingsDelivery and pluginDelivery 'initialize'):
// `disallowedTools`, `settings` and `plugins`, checked as --disallowedTools, --settings and
// --plugin-dir are. Each throws, naming the field, on a value that cannot be taken: the SDK then
// ends the session rather than run without what it asked for.
import { validateSettings } from "@harness/agent/config-checks";
import { parseToolRules } from "./tool-rules.ts";

/** Where messages about the request's settings say they come from. */
export const INITIALIZE_SETTINGS = "the initialize request's settings";

/** The deny rules of `value` (a list of rules in the settings' syntax, as --disallowedTools takes). */
export function initializeDisallowedTools(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((rule) => typeof rule === "string")) throw new Error(`initialize: disallowedTools must be a list of permission rules, such as ["Bash", "Read(./secrets/**)"], not ${describe(value)}`);
  if (value.length === 0) return [];
  const rules = parseToolRules("initialize: disallowedTools", value);
  if (typeof rules === "string") throw new Error(rules);
  return rules;
}

/** The settings object of `value`, checked as --settings checks its JSON. */
export function initializeSettings(value: unknown): { file: string; settings: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`initialize: settings must be an object of settings, as --settings takes, not ${describe(value)}`);
  const [problem] = validateSettings(value, INITIALIZE_SETTINGS).diagnostics;
  if (problem) throw new Error(`initialize: settings${problem.key === undefined ? "" : ` (${problem.key})`}: ${problem.message}`);
  return { file: INITIALIZE_SETTINGS, settings: value };
}

/** The directories of `value`'s local plugins (the SDK's {type: "local", path}), as given: they are
 * resolved where the run was started, as --plugin-dir's are. */
export function initializePlugins(value: unknown): string[] {
  if (!Array.isArray(value)) throw new Error(`initialize: plugins must be a list of plugins, such as [{"type": "local", "path": "./my-plugin"}], not ${describe(value)}`);
  return value.map((plugin, i) => {
    if (typeof plugin !== "object" || plugin === null || Array.isArray(plugin)) throw new Error(`initialize: plugins[${i}] must be an object such as {"type": "local", "path": "./my-plugin"}, not ${describe(plugin)}`);
    const { type, path } = plugin as Record<string, unknown>;
    if (type !== "local") throw new Error(`initialize: plugins[${i}].type must be "local" (a plugin in a directory), not ${describe(type)}`);
    if (typeof path !== "string" || path.trim() === "") throw new Error(`initialize: plugins[${i}].path must be the plugin's directory, not ${describe(path)}`);
    return path;
  });
}

function describe(value: unknown): string {
  return value === undefined ? "nothing" : value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : JSON.stringify(value);
}
