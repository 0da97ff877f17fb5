// Where a hook the read routes list is in its settings file. Their ids count the groups and hooks
// the runs load (`<scope>.<event>.<group>.<hook>`), after the loader has left out those it rejects;
// a change is made to the file as it is, where the same group and hook may have other places. Each
// group and hook of the file is put through the loader's own checks alone to tell which it keeps.
import { parseHooksConfig } from "@harness/agent/hooks-config";
import { validateSettings } from "@harness/agent/run-settings";
import { isJsonObject } from "@harness/agent/json-text";

/** A hook's place in the file: its group's index in the event's list, its own in the group's. */
export type HookPlace = { group: number; hook: number };

/** Whether the loader keeps `groups` of `event` (a settings file's `hooks[event]`), and which of
 * their hooks: the loaded groups in order, each with its place in the file and its hooks'. */
export function loadedPlaces(event: string, groups: unknown): { group: number; hooks: number[] }[] {
  if (!Array.isArray(groups)) return [];
  const places: { group: number; hooks: number[] }[] = [];
  groups.forEach((group, g) => {
    if (!loads(event, group)) return;
    const hooks = isJsonObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
    const kept = hooks.flatMap((hook, h) => (loads(event, { ...(group as Record<string, unknown>), hooks: [hook] }) ? [h] : []));
    if (kept.length > 0) places.push({ group: g, hooks: kept });
  });
  return places;
}

/** Whether a run loads `group` of `event`, the settings' validation and the hooks' parse both. */
function loads(event: string, group: unknown): boolean {
  const { settings } = validateSettings({ hooks: { [event]: [group] } }, "settings");
  return (parseHooksConfig(settings.hooks, "settings").config as Record<string, unknown[] | undefined>)[event]?.length === 1;
}

/** The place in the file of the loaded hook `group`.`hook` of `event` (the numbers of its id). */
export function placeOf(event: string, groups: unknown, group: number, hook: number): HookPlace | undefined {
  const loaded = loadedPlaces(event, groups)[group];
  const at = loaded?.hooks[hook];
  return loaded && at !== undefined ? { group: loaded.group, hook: at } : undefined;
}

/** What is wrong with `group` of `event` for a run, as the loader says it (undefined: it loads
 * whole), its keys named from `key` (the group's place in the file). */
export function groupProblems(event: string, group: Record<string, unknown>, key: string): string | undefined {
  const validated = validateSettings({ hooks: { [event]: [group] } }, "settings");
  const parsed = parseHooksConfig(validated.settings.hooks, "settings");
  const problems = [...validated.diagnostics, ...parsed.diagnostics].map((d) => `${(d.key ?? "").replace(`hooks.${event}[0]`, key)}: ${d.message}`);
  return problems.length > 0 ? problems.join("; ") : undefined;
}
