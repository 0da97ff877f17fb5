export { discoverCommands } from "./discover.ts";
export type { DiscoverCommandsOptions } from "./discover.ts";
export { BUILTIN_COMMANDS, expandSlashCommand } from "./expand.ts";
export { shellCommands } from "./shell-syntax.ts";
export type { BuiltinCommand, SlashExpansion } from "./expand.ts";
export { slashCommandHelp } from "./help.ts";
export type { CommandDiagnostic, CommandDiscovery, CommandScope, SlashCommand } from "./types.ts";
