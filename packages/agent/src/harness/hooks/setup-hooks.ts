// The hooks a run's configuration brings, as loadRunSetup keeps them: whose run (decided once, from
// the managed settings' locks and any scope's disableAllHooks, as Claude Code decides it), each held
// once to the http hook policy (allowedHttpHookUrls, httpHookAllowedEnvVars).
import { applyHttpHookPolicy, type HttpHookPolicy } from "../../hooks/http-policy.ts";
import { mergeHooksConfigs, parseHooksConfig } from "../../hooks/parse-config.ts";
import type { HooksConfig } from "../../hooks/types.ts";
import type { Plugin } from "../../plugins/types.ts";
import type { LoadedSettings, SettingsSource } from "../../settings/types.ts";
import { describeDiagnostic } from "../diagnostic.ts";
import type { NoticeSink } from "../resources.ts";
import type { RunInventory } from "../setup/run-inventory.ts";

/** Whose hooks run: `all` restricted when the managed settings say disableAllHooks (none run);
 * `managed` under allowManagedHooksOnly, or when another scope says disableAllHooks (a user's or a
 * repository's settings cannot silence the organisation's hooks); undefined: every scope's. */
export type HooksRestriction = RunInventory["hooksRestricted"];

export function hooksRestriction(loaded: Pick<LoadedSettings, "sources" | "settings" | "locks">): HooksRestriction {
  if (loaded.sources.some((source) => source.scope === "managed" && source.settings.disableAllHooks === true)) return "all";
  return loaded.locks.managedHooksOnly || loaded.settings.disableAllHooks === true ? "managed" : undefined;
}

type Diagnostic = { file: string; key?: string; message: string };

/** The hooks of the settings that run under `restricted`, lowest precedence first (as Claude Code
 * merges them), then the plugins': all of them where every scope's hooks run; where only the managed
 * settings' do, those of the plugins the managed settings enable, which are the organisation's as
 * much as its own hooks are (as Claude Code has it since 2.1.101). Each file's http hooks are held to
 * `policy`, and each one left out is said; `inventory` gets each file's as they run. */
export function settingsHooks(
  { sources, plugins, restricted, policy }: { sources: readonly SettingsSource[]; plugins: readonly Plugin[]; restricted: HooksRestriction; policy: HttpHookPolicy },
  report: (d: readonly Diagnostic[]) => void,
  notice: NoticeSink,
  inventory: RunInventory,
): HooksConfig {
  if (restricted === "all") return {};
  const running = restricted === "managed" ? sources.filter((source) => source.scope === "managed") : sources;
  const named = [
    ...running.map((source) => {
      const parsed = parseHooksConfig(source.settings.hooks, source.path);
      report(parsed.diagnostics);
      return { file: source.path, config: parsed.config };
    }),
    ...plugins.filter((plugin) => restricted === undefined || plugin.managed).map((plugin) => ({ file: `plugin ${plugin.name} (${plugin.root})`, config: plugin.hooks })),
  ];
  // Held file by file, then merged: the policy looks at one hook at a time, so this is the merged
  // hooks held, and each file's as /hooks lists them.
  const held = named.map(({ file, config }) => {
    const { config: kept, left } = applyHttpHookPolicy(config, policy);
    for (const message of left) notice("warning", message);
    return { file, config: kept };
  });
  inventory.hookFiles = held.filter(({ config }) => Object.keys(config).length > 0);
  return mergeHooksConfigs(held.map(({ config }) => config));
}

/** Hooks of a skill or an agent definition: a file's (`path`), or one given with the run (`file`). */
type HookHolder = { hooks?: HooksConfig; path?: string; file?: string };

/** Agent files' and skills' hooks run only where every scope's hooks do (no disableAllHooks, no
 * allowManagedHooksOnly: neither is a managed setting), held to the same http limits; each holder's
 * `hooks` is set to what runs, or deleted. */
export function holdHolderHooks(holders: Iterable<HookHolder>, restricted: HooksRestriction, policy: HttpHookPolicy, notice: NoticeSink): void {
  for (const holder of holders) {
    if (!holder.hooks) continue;
    if (restricted !== undefined) {
      delete holder.hooks;
      continue;
    }
    const held = applyHttpHookPolicy(holder.hooks, policy);
    // Named with its file: the message alone would send the user looking in the settings.
    const file = holder.path ?? holder.file;
    for (const message of held.left) notice("warning", file ? describeDiagnostic({ file, message }) : message);
    holder.hooks = held.config;
  }
}
