import type { SkillDiagnostic } from "../skills/types.ts";

export type CommandScope = "user" | "project" | "plugin";

/** A custom slash command: a markdown file under `.claude/commands/`. */
export type SlashCommand = {
  /** What the user types after "/": the file name without .md, prefixed by its subfolders joined
   * with ":" (`frontend/component.md` → `frontend:component`), as in Claude Code. */
  name: string;
  scope: CommandScope;
  /** The plugin it comes from (scope "plugin"): its name is `<plugin>:<name>`. */
  plugin?: string;
  /** Absolute path of the file. */
  path: string;
  /** The frontmatter description, else the body's first line. */
  description: string;
  /** The file without its frontmatter: the prompt template. */
  body: string;
  argumentHint?: string;
  /** Names for positional arguments (`$name` in the body). */
  argumentNames?: string[];
  /** Tools the command may use without asking (permission rules). */
  allowedTools?: string[];
  /** The model to run the command with. */
  model?: string;
  /** The model may run it too, with the Skill tool (Claude Code merged its commands into skills):
   * its frontmatter has a description, and no `disable-model-invocation: true`. */
  modelInvocable?: boolean;
};

export type CommandDiagnostic = SkillDiagnostic;

export type CommandDiscovery = { commands: SlashCommand[]; diagnostics: CommandDiagnostic[] };
