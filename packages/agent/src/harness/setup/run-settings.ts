// The settings a run reads, found as the run finds them (the project root, the home, the managed
// file, the run's own and its program's tiers), and what they make of bypassPermissions at the
// run's start: one reading for loadRunSetup, and for a program that asks to switch the run to
// bypassPermissions before it has started (the control protocol's set_permission_mode); and the
// models they allow, for a program that asks to switch the run's model (set_model).
import os from "node:os";
import path from "node:path";
import { modelRefusal } from "../model/available-models.ts";
import { loadSettings } from "../../settings/load.ts";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "../../settings/managed-path.ts";
import type { LoadedSettings } from "../../settings/types.ts";
import type { RunAgentOptions } from "../../types.ts";
import { findProjectRoot, ownProjectRoot } from "./project-root.ts";

/** How a run checks each settings file it reads, for those that write one (the server's API). */
export { validateSettings } from "../../settings/validate.ts";

type SettingsOptions = Pick<RunAgentOptions, "cwd" | "home" | "projectRoot" | "managedSettingsPath" | "flagSettings" | "managedSettings" | "settingSources">;

/** Where a run in `options.cwd` reads its configuration. */
export async function runPlace(options: Pick<RunAgentOptions, "cwd" | "home" | "projectRoot">): Promise<{ cwd: string; home: string; projectRoot: string; inGitRepo: boolean }> {
  const cwd = path.resolve(options.cwd);
  const found = await findProjectRoot(cwd);
  const projectRoot = options.projectRoot === undefined ? ownProjectRoot(cwd, found.root) : path.resolve(cwd, options.projectRoot);
  return { cwd, home: options.home ?? os.homedir(), projectRoot, inGitRepo: found.inGitRepo };
}

/** The run's settings, every scope's file, the run's own (`flagSettings`) and its program's tier
 * (`managedSettings`) merged. */
export function loadRunSettings(options: SettingsOptions, place: { cwd: string; home: string; projectRoot: string }): Promise<LoadedSettings> {
  return loadSettings({
    cwd: place.cwd,
    projectRoot: place.projectRoot,
    home: place.home,
    managedPath: options.managedSettingsPath ?? DEFAULT_MANAGED_SETTINGS_PATH,
    ...(options.flagSettings && { flag: options.flagSettings }),
    ...(options.managedSettings && { parent: options.managedSettings }),
    ...(options.settingSources && { fileScopes: options.settingSources }),
  });
}

export type StartBypass = { bypassAvailable: boolean; bypassDisabled: boolean };

/** Whether a run may be switched to bypassPermissions, as Claude Code decides it when a session
 * starts: it started in it (its mode, else the settings' defaultMode) or was started allowed to
 * (--allow-dangerously-skip-permissions); never where any settings say disableBypassPermissionsMode. */
export function startBypass(loaded: LoadedSettings, options: Pick<RunAgentOptions, "permissionMode" | "allowBypassPermissions">): StartBypass {
  const startMode = options.permissionMode ?? loaded.permissions.defaultMode;
  return { bypassAvailable: options.allowBypassPermissions === true || startMode === "bypassPermissions", bypassDisabled: loaded.locks.bypassDisabled };
}

/** startBypass for a run not started yet, its settings read as it will read them; an error naming
 * the managed settings when they cannot be read (the run would not start). */
export async function bypassBeforeStart(options: SettingsOptions & Pick<RunAgentOptions, "permissionMode" | "allowBypassPermissions" | "loadUserConfig">): Promise<StartBypass | { error: string }> {
  if (options.loadUserConfig === false) return { bypassAvailable: options.allowBypassPermissions === true || options.permissionMode === "bypassPermissions", bypassDisabled: false };
  const loaded = await loadRunSettings(options, await runPlace(options));
  return loaded.policyProblem === undefined ? startBypass(loaded, options) : { error: loaded.policyProblem };
}

/** The models a run not started yet may use (its settings' availableModels, read as the run will
 * read them; `allowed` undefined: any), or an error naming the managed settings when they cannot be
 * read (the run would not start). */
export async function modelsBeforeStart(options: SettingsOptions & Pick<RunAgentOptions, "loadUserConfig">): Promise<{ allowed?: readonly string[] } | { error: string }> {
  if (options.loadUserConfig === false) return {};
  const loaded = await loadRunSettings(options, await runPlace(options));
  if (loaded.policyProblem !== undefined) return { error: loaded.policyProblem };
  return loaded.availableModels ? { allowed: loaded.availableModels } : {};
}

/** Why a run not started yet may not be switched to `model` (modelsBeforeStart), or undefined: it may. */
export async function modelBeforeStart(options: SettingsOptions & Pick<RunAgentOptions, "loadUserConfig" | "env">, model: string): Promise<string | undefined> {
  const read = await modelsBeforeStart(options);
  if ("error" in read) return read.error;
  return read.allowed && modelRefusal(model, read.allowed, options.env ?? process.env);
}
