// Claude Code's permission updates: what an approval may change besides letting its call run
// ("always allow"), as the Agent SDK's canUseTool gives them in `updatedPermissions`. Each names
// where it is kept: the session only, or a settings file (see settings/persist-updates.ts).
import path from "node:path";
import { z } from "zod";
import { ruleRoot, settingsFile } from "../settings/files.ts";
import type { SettingsFileScope } from "../settings/types.ts";
import { bypassRefusal } from "./bypass.ts";
import { ruleText, toPermissionRules } from "./parse-rule.ts";
import { PERMISSION_MODES, type PermissionContext, type PermissionRule } from "./types.ts";

const destination = z.enum(["userSettings", "projectSettings", "localSettings", "session", "cliArg"]);
const ruleValue = z.object({ toolName: z.string().min(1), ruleContent: z.string().optional() });
const rules = { rules: z.array(ruleValue), behavior: z.enum(["allow", "deny", "ask"]), destination };
const update = z.discriminatedUnion("type", [
  z.object({ type: z.literal("addRules"), ...rules }),
  z.object({ type: z.literal("replaceRules"), ...rules }),
  z.object({ type: z.literal("removeRules"), ...rules }),
  z.object({ type: z.literal("setMode"), mode: z.enum(PERMISSION_MODES), destination }),
  z.object({ type: z.literal("addDirectories"), directories: z.array(z.string().min(1)), destination }),
  z.object({ type: z.literal("removeDirectories"), directories: z.array(z.string().min(1)), destination }),
]);

export type PermissionUpdate = z.infer<typeof update>;
export type PermissionUpdateDestination = z.infer<typeof destination>;
export type PermissionRuleValue = z.infer<typeof ruleValue>;

/** The updates `value` holds, or what is wrong with it, naming the entry. The one reading of an
 * answer's `updatedPermissions`, whoever gives it (canUseTool, a PermissionRequest hook, a
 * permission prompt tool): absent or null, there are none. */
export function parsePermissionUpdates(value: unknown): PermissionUpdate[] | { error: string } {
  if (value === undefined || value === null) return [];
  const parsed = z.array(update).safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
  return { error: `updatedPermissions${where}: ${issue.message}` };
}

/** A rule value as a rule's text: `Tool` or `Tool(content)`. */
export function ruleValueText(value: PermissionRuleValue): string {
  return value.ruleContent === undefined || value.ruleContent === "" ? value.toolName : ruleText({ tool: value.toolName, specifier: value.ruleContent });
}

/** The directories the updates' settings files and relative paths are found from. */
export type UpdateWhere = { cwd: string; home: string; projectRoot: string };

/** The settings file a destination's updates are kept in; none for the session and the command line. */
export function destinationFile(to: PermissionUpdateDestination, where: UpdateWhere): string | undefined {
  const scope = FILE_SCOPES[to];
  return scope && settingsFile(scope, where);
}

/** The settings scope whose file a destination is; the session and the command line have none. */
const FILE_SCOPES: Partial<Record<PermissionUpdateDestination, SettingsFileScope>> = { userSettings: "user", projectSettings: "project", localSettings: "local" };

/** An update with the rules it adds parsed, rooted and sourced as its destination has them: read
 * once, however many permission contexts it is then applied to. */
export type ReadUpdate = {
  update: PermissionUpdate;
  /** Of an addRules or replaceRules: its rules that parse, and those that do not, with why. */
  rules?: PermissionRule[];
  unparsed?: { value: PermissionRuleValue; text: string; error: string }[];
};

/** `updates` with their added rules parsed (see ReadUpdate). */
export function readPermissionUpdates(updates: readonly PermissionUpdate[], where: UpdateWhere): ReadUpdate[] {
  return updates.map((update) => {
    if (update.type !== "addRules" && update.type !== "replaceRules") return { update };
    // The session's and the command line's rules start where the run's own settings' (--settings) do.
    const origin = { root: ruleRoot(FILE_SCOPES[update.destination] ?? "flag", where), source: sourceOf(update.destination, where) };
    const rules: PermissionRule[] = [];
    const unparsed: NonNullable<ReadUpdate["unparsed"]> = [];
    for (const value of update.rules) {
      const text = ruleValueText(value);
      const parsed = toPermissionRules([text], origin);
      rules.push(...parsed.rules);
      for (const { error } of parsed.errors) unparsed.push({ value, text, error });
    }
    return { update, rules, unparsed };
  });
}

/** `permissions` with `updates` applied in order, as Claude Code applies them to its session: rules
 * added to, replaced among or removed from those of their destination, the mode set, directories
 * added or removed. Rules that do not parse are left out and said in `errors`. */
export function applyPermissionUpdates(permissions: PermissionContext, updates: readonly PermissionUpdate[], where: UpdateWhere): { permissions: PermissionContext; errors: string[] } {
  return applyReadUpdates(permissions, readPermissionUpdates(updates, where), where);
}

/** applyPermissionUpdates of updates already read. */
export function applyReadUpdates(permissions: PermissionContext, updates: readonly ReadUpdate[], where: UpdateWhere): { permissions: PermissionContext; errors: string[] } {
  let next = { ...permissions, rules: { ...permissions.rules } };
  const errors: string[] = [];
  for (const { update: change, rules, unparsed } of updates) {
    if (change.type === "setMode") {
      const refusal = change.mode === "bypassPermissions" ? bypassRefusal(next) : undefined;
      if (refusal) errors.push(`The mode stays ${next.mode}: ${refusal}.`);
      else next.mode = change.mode;
      continue;
    }
    if (change.type === "addDirectories" || change.type === "removeDirectories") {
      const dirs = change.directories.map((dir) => path.resolve(where.cwd, dir));
      const kept = next.additionalDirectories.filter((dir) => !dirs.includes(dir));
      next = { ...next, additionalDirectories: change.type === "addDirectories" ? [...kept, ...dirs] : kept };
      continue;
    }
    // Where a destination's rules come from, as their `source` says (a settings file, or the session).
    const source = sourceOf(change.destination, where);
    const ofDestination = (rule: PermissionRule) => (rule.source ?? "the session") === source;
    const current = next.rules[change.behavior];
    if (change.type === "removeRules") {
      const texts = change.rules.map(ruleValueText);
      next.rules[change.behavior] = current.filter((rule) => !(ofDestination(rule) && texts.includes(rule.text)));
      continue;
    }
    const kept = change.type === "replaceRules" ? current.filter((rule) => !ofDestination(rule)) : current;
    for (const { text, error } of unparsed ?? []) errors.push(`The rule "${text}" is left out: ${error}`);
    const known = new Set(kept.filter(ofDestination).map((rule) => rule.text));
    next.rules[change.behavior] = [...kept, ...(rules ?? []).filter((rule) => !known.has(rule.text))];
  }
  return { permissions: next, errors };
}

/** The `source` of a destination's rules: its settings file, or the session. */
function sourceOf(to: PermissionUpdateDestination, where: UpdateWhere): string {
  return destinationFile(to, where) ?? "the session";
}
