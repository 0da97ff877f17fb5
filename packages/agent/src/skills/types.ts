import type { HooksConfig } from "../hooks/types.ts";

export type SkillScope = "user" | "project" | "plugin";

/** A skill: a directory holding SKILL.md (instructions with frontmatter) and any files it bundles. */
export type Skill = {
  /** What the Skill tool and `/name` take: the skill's directory name, as in Claude Code. */
  name: string;
  /** The frontmatter `name`. The Agent Skills format requires it to equal the directory name. */
  displayName: string;
  /** When to use the skill; the model decides from this alone. */
  description: string;
  scope: SkillScope;
  /** The plugin it comes from (scope "plugin"): its name is `<plugin>:<skill>`. */
  plugin?: string;
  /** Absolute path of SKILL.md. */
  path: string;
  /** The skill's directory: files the instructions mention are relative to it. */
  baseDir: string;
  /** SKILL.md without its frontmatter. */
  body: string;
  /** Tools the skill may use without asking while it is active (permission rules, e.g. "Bash(git add:*)"). */
  allowedTools?: string[];
  argumentHint?: string;
  /** Names for positional arguments: `$name` in the body stands for the argument in that position. */
  argumentNames?: string[];
  /** The model to run the skill with. */
  model?: string;
  /** Only the user can invoke it (with /name); it is left out of the registry and the Skill tool. */
  disableModelInvocation: boolean;
  /** False hides it from /name; the model can still use it. */
  userInvocable: boolean;
  /** `context: fork`: the skill runs in a sub-agent of this type (`agent:`, general-purpose by
   * default), its prompt that sub-agent's task; only the sub-agent's final answer comes back. */
  fork?: { agent: string };
  /** Hooks of its frontmatter: they join the conversation's when the skill is invoked, for the rest
   * of that run (a `once` hook runs once in the conversation). */
  hooks?: HooksConfig;
  /** A custom command offered to the model as a skill (commands/as-skills.ts): its prompt is its
   * text alone, as when the user types its name. */
  command?: boolean;
};

/** A problem with a user's file that did not stop the rest from loading. */
export type SkillDiagnostic = { file: string; key?: string; message: string };

export type SkillDiscovery = { skills: Skill[]; diagnostics: SkillDiagnostic[] };
