// What a user may type after "/" in a run not started yet, found as the run will find it (the
// project root, the settings' enabledPlugins, the user's and the project's commands and skills):
// for a program that completes what its user types before anything runs (`harness chat`). The same
// names as a started run's RunReadyInfo.slashCommands, but the MCP servers' prompts, which only a
// started run knows: listing them would start the servers (processes, logins, approvals).
import { BUILTIN_PROMPTS } from "../../commands/builtin-prompts.ts";
import { discoverCommands } from "../../commands/discover.ts";
import { BUILTIN_COMMANDS, REPORT_COMMANDS } from "../../commands/expand.ts";
import type { PluginDiscovery } from "../../plugins/types.ts";
import { discoverSkills } from "../../skills/discover.ts";
import type { RunAgentOptions } from "../../types.ts";
import { loadRunSettings, runPlace } from "../setup/run-settings.ts";

/** The built-in commands every run has, by name (no "/"): commands, reports and prompts. */
export function builtinSlashCommands(): string[] {
  return [...BUILTIN_COMMANDS, ...REPORT_COMMANDS, ...BUILTIN_PROMPTS.map((prompt) => prompt.name)];
}

/** Names (no "/"), sorted, each once: the built-ins, then the custom commands and the skills a user
 * may invoke, plugins' included. Never rejects: what cannot be read is left out. */
export async function slashCommandsBeforeStart(options: Pick<RunAgentOptions, "cwd" | "home" | "pluginDirs">): Promise<string[]> {
  return (await slashCommandUsageBeforeStart(options)).names;
}

/** The names of slashCommandsBeforeStart, and the argument hints (front matter `argument-hint`) of
 * the custom commands and skills that have one, by name (a command's over a skill's of its name,
 * as a run takes the command). */
export async function slashCommandUsageBeforeStart(options: Pick<RunAgentOptions, "cwd" | "home" | "pluginDirs">): Promise<{ names: string[]; hints: Map<string, string> }> {
  const place = await runPlace(options);
  const loaded = await loadRunSettings({ cwd: place.cwd }, place).catch(() => undefined);
  const enabledPlugins = loaded?.settings.enabledPlugins;
  const pluginDirs = options.pluginDirs ?? [];
  let found: PluginDiscovery = { plugins: [], diagnostics: [] };
  if (enabledPlugins !== undefined || pluginDirs.length > 0) {
    const { discoverPlugins } = await import("../../plugins/discover.ts");
    found = await discoverPlugins({ home: place.home, projectRoot: place.projectRoot, cwd: place.cwd, enabledPlugins, sources: loaded?.sources, pluginDirs }).catch(() => found);
  }
  const where = { home: place.home, projectRoot: place.projectRoot, plugins: found.plugins };
  const [commands, skills] = await Promise.all([discoverCommands(where), discoverSkills(where)]);
  const invocable = skills.skills.filter((s) => s.userInvocable && !s.command);
  const custom = [...commands.commands.map((c) => c.name), ...invocable.map((s) => s.name)];
  const hints = new Map<string, string>();
  for (const { name, argumentHint } of [...invocable, ...commands.commands]) if (argumentHint) hints.set(name, argumentHint);
  return { names: [...new Set([...builtinSlashCommands(), ...custom])].sort(), hints };
}
