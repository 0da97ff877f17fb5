// What a prompt that starts with "/" means: a built-in the loop handles, a custom command or a
// skill expanded into the prompt the model gets, or nothing special (sent as typed).
// The narrow entry: the package index would load the wire schemas (zod) into every run.
import { BUILTIN_COMMANDS, REPORT_COMMANDS } from "@harness/protocol/local-commands";
import { substituteArguments } from "../skills/arguments.ts";
import { sessionValues, skillPrompt } from "../skills/skill-tool.ts";
import type { HooksConfig } from "../hooks/types.ts";
import type { Skill } from "../skills/types.ts";
import { builtinPrompt } from "./builtin-prompts.ts";
import { shellCommands } from "./shell-syntax.ts";
import type { SlashCommand } from "./types.ts";

export { BUILTIN_COMMANDS, REPORT_COMMANDS };
export type BuiltinCommand = (typeof BUILTIN_COMMANDS)[number];

export function isBuiltinCommand(name: string): name is BuiltinCommand {
  return (BUILTIN_COMMANDS as readonly string[]).includes(name);
}

export type ReportCommand = (typeof REPORT_COMMANDS)[number];

function isReportCommand(name: string): name is ReportCommand {
  return (REPORT_COMMANDS as readonly string[]).includes(name);
}

export type SlashExpansion =
  /** `prompt` is what followed the name: for /compact, the summary instructions. */
  | { kind: "builtin"; name: BuiltinCommand | ReportCommand; prompt: string }
  | {
      kind: "command" | "skill";
      name: string;
      /** The body with its arguments substituted; `@file` references are left for the model. */
      prompt: string;
      model?: string;
      allowedTools?: string[];
      /** The body's `!` shell commands (!`cmd` and ```! blocks): the run executes them before the
       * prompt reaches the model and puts their output in their place (harness/commands/shells.ts). */
      shellCommands: string[];
      /** A skill with `context: fork`, and the arguments it was given: `prompt` is its sub-agent's
       * task, not the model's prompt (see harness/commands/forked-skill.ts). */
      fork?: { skill: Skill; args: string };
      /** The skill typed, when it has hooks of its own: they join the run's. */
      hooks?: HooksConfig;
    }
  /** Not a slash command (or an unknown one): `prompt` is the input unchanged; `name` is the word
   * after "/" when there was one. */
  | { kind: "none"; name: string; prompt: string };

/** Pure. Precedence on a name: built-in, then skill, then custom command (Claude Code looks skills
 * up before legacy commands), then a report built-in (/context, /cost, /mcp, /status…) or a built-in prompt
 * (/init), which a user's own may replace. Only
 * user-invocable skills answer to /name. */
export function expandSlashCommand(prompt: string, sources: { commands: readonly SlashCommand[]; skills: readonly Skill[]; sessionId?: string }): SlashExpansion {
  const match = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!match) return { kind: "none", name: "", prompt };
  const name = match[1] as string;
  const args = (match[2] ?? "").trim();
  if (isBuiltinCommand(name)) return { kind: "builtin", name, prompt: args };

  const skill = sources.skills.find((candidate) => candidate.name === name && candidate.userInvocable);
  // A forked skill's model and allowed-tools are its sub-agent's (skills/fork.ts), not the
  // conversation's: the run grants them for its `!` commands and its sub-agent alone.
  if (skill?.fork) return { kind: "skill", name, prompt: skillPrompt(skill, args, sources.sessionId), shellCommands: shellCommands(skill.body), fork: { skill, args } };
  if (skill) return withOptions({ kind: "skill", name, prompt: skillPrompt(skill, args, sources.sessionId), shellCommands: shellCommands(skill.body), ...(skill.hooks && { hooks: skill.hooks }) }, skill);

  const command = sources.commands.find((candidate) => candidate.name === name);
  if (command) {
    const shells = shellCommands(command.body);
    const expanded = substituteArguments(command.body, args, { names: command.argumentNames ?? [], hold: shells.length > 0, values: sessionValues(sources.sessionId) });
    return withOptions({ kind: "command", name, prompt: expanded, shellCommands: shells }, command);
  }
  if (isReportCommand(name)) return { kind: "builtin", name, prompt: args };
  const builtin = builtinPrompt(name);
  if (builtin) return { kind: "command", name, prompt: builtin.prompt(args), shellCommands: [] };
  return { kind: "none", name, prompt };
}

type Expanded = Extract<SlashExpansion, { kind: "command" | "skill" }>;

function withOptions(expansion: Expanded, source: { model?: string; allowedTools?: string[] }): Expanded {
  if (source.model) expansion.model = source.model;
  if (source.allowedTools) expansion.allowedTools = source.allowedTools;
  return expansion;
}
