// claude's flags that shape every run of an interactive session (--append-system-prompt[-file],
// --allowedTools, --disallowedTools, --add-dir, --mcp-config, --settings, --agents, --plugin-dir…).
// A chat of its own (--local, or `harness` with no command) takes them: checked as `harness run`
// checks them, in its words, and given to its server, whose every run carries them. A chat on a
// shared server refuses them: they would change the runs of its other clients, and the wire
// protocol's configure cannot carry them.
import { resolve } from "node:path";
import type { RunnerRunOptions } from "@harness/protocol";
import type { Command } from "../args.ts";
import { readPromptFile } from "../prompt-file.ts";
import { type OptionSpec, takesNext } from "../scan-options.ts";
import { parseToolRules } from "../tool-rules.ts";

type RunCommand = Extract<Command, { kind: "run" }>;
type Options = Record<string, string | true | string[]>;

/** The flags as given (`harness run`'s fields of the same names): checked when the chat starts. */
export type ChatRunFlags = Pick<
  RunCommand,
  "appendSystemPrompt" | "appendSystemPromptFile" | "allowedTools" | "disallowedTools" | "pluginDirs" | "agents" | "mcpConfig" | "strictMcpConfig" | "settings" | "settingSources" | "addDirs" | "tools"
>;

/** Shared with `harness run`, which takes the same flags the same way. */
export const RUN_SHAPING_OPTIONS: OptionSpec = {
  "--append-system-prompt": { key: "appendSystemPrompt", value: true },
  "--append-system-prompt-file": { key: "appendSystemPromptFile", value: true },
  "--allowedTools": { key: "allowedTools", value: true, repeat: true },
  "--allowed-tools": { key: "allowedTools", value: true, repeat: true },
  "--disallowedTools": { key: "disallowedTools", value: true, repeat: true },
  "--disallowed-tools": { key: "disallowedTools", value: true, repeat: true },
  "--plugin-dir": { key: "pluginDirs", value: true, repeat: true },
  "--agents": { key: "agents", value: true },
  "--mcp-config": { key: "mcpConfig", value: true, repeat: true, many: true },
  "--strict-mcp-config": { key: "strictMcpConfig", value: false },
  "--settings": { key: "settings", value: true },
  "--setting-sources": { key: "settingSources", value: true, empty: true },
  "--add-dir": { key: "addDirs", value: true, repeat: true, many: true },
  "--tools": { key: "tools", value: true, repeat: true, empty: true },
};

/** The flags in the scanned `options` (none: an empty object), or a one-line usage error. */
export function takeChatRunFlags(options: Options): ChatRunFlags | string {
  const flags: ChatRunFlags = {};
  for (const [key, flag] of [["allowedTools", "--allowedTools"], ["disallowedTools", "--disallowedTools"]] as const) {
    const values = options[key];
    if (!Array.isArray(values)) continue;
    const rules = parseToolRules(flag, values);
    if (typeof rules === "string") return rules;
    flags[key] = rules;
  }
  if (typeof options.appendSystemPrompt === "string" && typeof options.appendSystemPromptFile === "string") {
    return "--append-system-prompt and --append-system-prompt-file cannot go together: give one of them";
  }
  for (const key of ["appendSystemPrompt", "appendSystemPromptFile", "agents", "settings", "settingSources"] as const) {
    const value = options[key];
    if (typeof value === "string") flags[key] = value;
  }
  for (const key of ["pluginDirs", "mcpConfig", "addDirs", "tools"] as const) {
    const values = options[key];
    if (Array.isArray(values)) flags[key] = values;
  }
  if (options.strictMcpConfig) flags.strictMcpConfig = true;
  return flags;
}

/** The first of `args` (before `--`, values of `spec`'s options skipped) that shapes every run. */
export function runShapingFlag(args: readonly string[], spec: OptionSpec): string | undefined {
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const flag = args[i].split("=")[0];
    if (flag in RUN_SHAPING_OPTIONS) return flag;
    if (!args[i].includes("=") && takesNext(spec[flag], args[i + 1])) i++;
  }
  return undefined;
}

export function sharedServerMessage(flag: string): string {
  return `${flag} cannot be given to a chat on a shared server: it would change the runs of the server's other clients too, and a session's settings (model, permission mode, system prompt, effort, max turns) cannot carry it; a chat of its own takes it (harness chat --local ${flag} …, or harness ${flag} …), as harness run does`;
}

/** What every run of the chat carries, checked as `harness run` checks the same flags (its error
 * lines); `warn` says what is taken but not as given. Paths are relative to `typedIn`, where the
 * command was typed. */
export async function chatRunOptions(
  flags: ChatRunFlags,
  typedIn: string,
  env: Readonly<Record<string, string | undefined>>,
  warn: (message: string) => void,
): Promise<{ ok: true; runOptions: RunnerRunOptions } | { ok: false; message: string }> {
  // Loaded here: parsing the command line (args.ts) needs only the flags' names.
  const [{ runConfigOptions }, { checkRunFlags }, { defaultBackendName }] = await Promise.all([import("../run/config-flags.ts"), import("../run/options.ts"), import("@harness/runner/backend-names")]);
  const backend = defaultBackendName(env);
  const given = Object.keys(flags);
  if (backend.ok && backend.name !== "builtin" && given.length > 0) {
    const flag = Object.keys(RUN_SHAPING_OPTIONS).find((name) => RUN_SHAPING_OPTIONS[name].key === given[0]);
    return { ok: false, message: `${flag}: the chat's runs go to the ${backend.name} backend (HARNESS_BACKEND), which does not take it: it is the builtin agent's, as on harness run; leave it out, or set HARNESS_BACKEND=builtin` };
  }
  // The file is read as the chat starts, from where the command was typed, as harness run reads it.
  let appendSystemPrompt = flags.appendSystemPrompt;
  if (flags.appendSystemPromptFile !== undefined) {
    const read = readPromptFile("--append-system-prompt-file", resolve(typedIn, flags.appendSystemPromptFile));
    if (!read.ok) return read;
    appendSystemPrompt = read.text;
  }
  const config = await runConfigOptions(flags, typedIn, env);
  if (!config.ok) return config;
  for (const warning of config.warnings) warn(warning);
  const checked = await checkRunFlags(flags, undefined, env, warn);
  if (typeof checked === "string") return { ok: false, message: checked };
  const rules = { ...(flags.allowedTools && { allow: flags.allowedTools }), ...(flags.disallowedTools && { deny: flags.disallowedTools }) };
  const { mcpConfig, strictMcpConfig, flagSettings, settingSources, additionalDirectories, builtinTools } = config.options;
  return {
    ok: true,
    runOptions: {
      ...(Object.keys(rules).length > 0 && { rules }),
      ...(appendSystemPrompt !== undefined && { appendSystemPrompt }),
      ...(flags.pluginDirs && { pluginDirs: flags.pluginDirs.map((dir) => resolve(typedIn, dir)) }),
      // Given with the run, as parseInlineAgents makes every one of them.
      ...(checked.agents && { agents: checked.agents.map((agent) => ({ ...agent, source: "cli" as const })) }),
      // runConfigOptions took only `mcpServers` objects.
      ...(mcpConfig && { mcpConfig: mcpConfig.map((group) => ({ file: group.file, servers: group.servers as Record<string, unknown> })) }),
      ...(strictMcpConfig && { strictMcpConfig }),
      ...(flagSettings && { flagSettings }),
      ...(settingSources && { settingSources: [...settingSources] }),
      ...(additionalDirectories && { additionalDirectories: [...additionalDirectories] }),
      ...(builtinTools && { builtinTools: [...builtinTools] }),
    },
  };
}
