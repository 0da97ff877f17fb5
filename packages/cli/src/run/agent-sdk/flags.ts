// The flags the Claude Agent SDK starts Claude Code's executable with, beyond those `claude -p`
// scripts use, so that `harness run` can be that executable (pathToClaudeCodeExecutable). Those with
// a meaning here are taken; those about Claude Code's own machinery (its API betas,
// session mirroring, settings sent in the initialize request…) are accepted and have no effect.
import { createRequire } from "node:module";
import { looksLikeDebugFilter, parseDebugFilter } from "@harness/llm/debug-log";
import type { Command } from "../../args.ts";
import { parseEffort } from "../../chat/flags.ts";
import type { OptionSpec } from "../../scan-options.ts";

type RunCommand = Extract<Command, { kind: "run" }>;
type Options = Record<string, string | true | string[]>;

export const SDK_OPTIONS: OptionSpec = {
  "--allow-dangerously-skip-permissions": { key: "allowBypass", value: false },
  "--effort": { key: "effort", value: true },
  "--max-thinking-tokens": { key: "maxThinkingTokens", value: true },
  "--project-config-root": { key: "projectConfigRoot", value: true },
  // The plugin's MCP servers start as with --plugin-dir: they are what the plugin brings.
  "--plugin-dir-no-mcp": { key: "pluginDirs", value: true, repeat: true },
  // The program's policy tier: what restricts of it holds as the managed settings' own (managed.ts).
  "--managed-settings": { key: "managedSettings", value: true },
  // With stream-json output, the hooks the run fires are lines of the stream (run/stream/hook-events.ts).
  "--include-hook-events": { key: "includeHookEvents", value: false },
  // The run's debug log (llm's debug-log.ts), with an optional filter: --debug=FILTER, or the next
  // argument when it names categories ("api,hooks", "!mcp"), so that `--debug "fix the bug"` leaves
  // the prompt alone; --debug= is one of all categories.
  "--debug": { key: "debug", value: true, empty: true, optional: looksLikeDebugFilter },
  "-d": { key: "debug", value: true, empty: true, optional: looksLikeDebugFilter },
  "--debug-file": { key: "debugFile", value: true },
  // Claude Code's way to have the lines on stderr, where they go here without a --debug-file.
  "--debug-to-stderr": { key: "debugToStderr", value: false },
  "-d2e": { key: "debugToStderr", value: false },
  // No effect here: the thinking mode follows the settings and --max-thinking-tokens; the rest are
  // Claude Code's (its API betas and task budget, session mirroring and resumption
  // points, its MCP channels and permission prompt styles, and the
  // fields it waits for in the initialize request, which is read here whatever they say).
  "--thinking": { key: "ignored", value: true, repeat: true, empty: true },
  "--thinking-display": { key: "ignored", value: true, repeat: true, empty: true },
  "--betas": { key: "ignored", value: true, repeat: true, empty: true },
  "--task-budget": { key: "ignored", value: true, repeat: true, empty: true },
  "--permission-prompts": { key: "ignored", value: true, repeat: true, empty: true },
  "--channels": { key: "ignored", value: true, repeat: true, empty: true },
  "--session-mirror": { key: "ignoredSwitch", value: false },
  "--await-initialize": { key: "ignoredSwitch", value: false },
  "--managed-settings-in-initialize": { key: "ignoredSwitch", value: false },
  "--initialize-fields": { key: "ignored", value: true, repeat: true, empty: true },
  "--resume-session-at": { key: "ignored", value: true, repeat: true, empty: true },
  "--resume-drops-turn": { key: "ignored", value: true, repeat: true, empty: true },
};

/** Copies the SDK's flags from the scanned `options` onto `command`; a one-line usage error for a
 * value that cannot be taken. */
export function takeSdkFlags(options: Options, command: RunCommand): string | undefined {
  if (options.allowBypass) command.allowBypass = true;
  if (options.includeHookEvents) command.includeHookEvents = true;
  if (typeof options.effort === "string") {
    // Claude Code's xhigh lies between high and max; the models here take the API's four levels.
    const effort = parseEffort(options.effort);
    if (typeof effort === "string") return effort;
    command.effort = effort.effort;
    if (effort.note) command.notes = [...(command.notes ?? []), effort.note];
  }
  if (typeof options.maxThinkingTokens === "string") {
    const tokens = /^\d+$/.test(options.maxThinkingTokens) ? Number(options.maxThinkingTokens) : NaN;
    if (!Number.isSafeInteger(tokens)) return `--max-thinking-tokens must be a whole number, not "${options.maxThinkingTokens}"`;
    command.maxThinkingTokens = tokens;
  }
  if (options.debug !== undefined || options.debugToStderr || typeof options.debugFile === "string") {
    const filter = typeof options.debug === "string" ? options.debug : "";
    const problem = parseDebugFilter(filter);
    if (typeof problem === "string") return problem;
    command.debug = typeof options.debugFile === "string" ? { filter, file: options.debugFile } : { filter };
  }
  if (typeof options.projectConfigRoot === "string") command.projectConfigRoot = options.projectConfigRoot;
  if (typeof options.managedSettings === "string") {
    let json: unknown;
    try {
      json = JSON.parse(options.managedSettings);
    } catch (error) {
      return `--managed-settings: the value is not valid JSON: ${(error as Error).message}`;
    }
    try {
      // Required where used, as parsing is synchronous: only this flag needs the managed settings' reader.
      const { sdkManagedSettings } = createRequire(import.meta.url)("./managed.ts") as typeof import("./managed.ts");
      command.managedSettings = sdkManagedSettings(json, "--managed-settings");
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
}
