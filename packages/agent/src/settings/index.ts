export { permissionContext } from "./context.ts";
export { loadSettings, scopedPermissions, settingsPaths } from "./load.ts";
export type { LoadSettingsOptions } from "./load.ts";
export { mergeSettings } from "./merge.ts";
export { validateSettings } from "./validate.ts";
export { SCOPES_BY_PRECEDENCE } from "./types.ts";
export type {
  HookGroupSettings,
  LoadedSettings,
  PermissionsSettings,
  ScopedPermissions,
  Settings,
  SettingsDiagnostic,
  SettingsFileScope,
  SettingsScope,
  SettingsSource,
} from "./types.ts";
