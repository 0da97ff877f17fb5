// The Skill tool (Claude Code's name and input): loads a skill's instructions into the conversation.
import { z } from "zod";
import { releaseArguments, shellCommands } from "../commands/shell-syntax.ts";
import { defineTool } from "../define-tool.ts";
import type { Tool } from "../types.ts";
import type { AgentDefinition } from "../subagents/types.ts";
import { substituteArguments } from "./arguments.ts";
import { isForked, runForkedSkill } from "./fork.ts";
import type { Skill } from "./types.ts";

export const SKILL_TOOL_NAME = "Skill";

const DESCRIPTION = `Runs a skill within the main conversation.

Skills are packaged instructions (and sometimes scripts, templates or reference files) for specific kinds of work. The available skills are listed in the system prompt by name with a description of when to use them.

How to use it:
- When the user's request matches an available skill, invoke it with this tool before doing anything else for that request. Pass the skill's name, and any arguments as one string in args (e.g. skill: "review-pr", args: "123").
- The result contains the skill's instructions and its base directory. Follow the instructions. Files they mention are relative to the base directory: read them with Read and run bundled scripts with Bash.
- Only invoke skills that are listed as available; do not guess names.
- If the user typed /<skill-name>, the skill's instructions are already in the conversation; do not invoke it again.`;

/** The prompt a skill puts into the conversation: its base directory, then its body with `args`
 * substituted, ${CLAUDE_SKILL_DIR} replaced by its directory and ${CLAUDE_SESSION_ID} by the
 * conversation's id (when given). A command's is its text alone, with its arguments and session
 * id (a command works as a skill does). When the body has `!` commands, the arguments in it are
 * held until they run (see holdArgument): expanding it releases them. */
export function skillPrompt(skill: Skill, args: string, sessionId?: string): string {
  const hold = shellCommands(skill.body).length > 0;
  const values = { ...sessionValues(sessionId), ...(!skill.command && { CLAUDE_SKILL_DIR: skill.baseDir }) };
  const body = substituteArguments(skill.body, args, { names: skill.argumentNames ?? [], hold, values });
  return skill.command ? body : `Base directory for this skill: ${skill.baseDir}\n\n${body}`;
}

/** What ${CLAUDE_SESSION_ID} stands for in a skill's or command's text: the conversation's id,
 * when given (substituteArguments' `values`). */
export function sessionValues(sessionId: string | undefined): Record<string, string> {
  return sessionId === undefined ? {} : { CLAUDE_SESSION_ID: sessionId };
}

const SkillParameters = z.strictObject({
  skill: z.string().min(1).describe('The skill name, e.g. "pdf" or "review-pr"'),
  args: z.string().optional().describe("Optional arguments for the skill, as one string"),
});

/** `skills` is read at each call, so a getter lets the set change during a run. `onInvoke` hears
 * each skill the model invokes (its allowed-tools then hold) and may return what takes them back.
 * A skill with `context: fork` runs in the sub-agent of `agents` it names, through the call's
 * spawnSubagent, and its allowed-tools are taken back once that is done; where there is no
 * spawnSubagent (within a sub-agent) its instructions come back as any skill's do. */
export function skillTool(skills: readonly Skill[] | (() => readonly Skill[]), onInvoke?: (skill: Skill) => (() => void) | void, agents: readonly AgentDefinition[] = [], sessionId?: string): Tool {
  const current = typeof skills === "function" ? skills : () => skills;
  return defineTool({
    name: SKILL_TOOL_NAME,
    readOnly: true,
    description: DESCRIPTION,
    parameters: SkillParameters,
    async execute({ skill: requested, args }, ctx) {
      const name = requested.trim().replace(/^\//, "");
      const available = current().filter((skill) => !skill.disableModelInvocation);
      const skill = available.find((candidate) => candidate.name === name);
      if (skill) {
        // Its allowed-tools hold from here on: its own `!` commands run under them (a forked
        // skill's, and its sub-agent, until that is done).
        const release = onInvoke?.(skill);
        const prompt = skillPrompt(skill, args ?? "", sessionId);
        const forked = isForked(skill) && ctx.spawnSubagent !== undefined;
        try {
          const ready = ctx.expandPrompt ? await ctx.expandPrompt(prompt, shellCommands(skill.body).length > 0) : { text: releaseArguments(prompt), images: [] };
          if (forked && ctx.spawnSubagent) {
            const { usage: _counted, agentId: _agent, ...output } = await runForkedSkill(skill, ready.text, agents, ctx.spawnSubagent, ready.images);
            return output;
          }
          const { text, images } = ready;
          return { content: text, ...(images.length > 0 && { blocks: [{ type: "text" as const, text }, ...images] }) };
        } finally {
          // A forked skill's allowed-tools were its `!` commands' and its sub-agent's.
          if (forked) release?.();
        }
      }
      const userOnly = current().find((candidate) => candidate.name === name);
      if (userOnly) return { content: `The skill ${name} can only be run by the user, who types /${name}.`, isError: true };
      const names = available.map((candidate) => candidate.name);
      return {
        content: names.length > 0 ? `Unknown skill: ${name}. Available skills: ${names.join(", ")}.` : `Unknown skill: ${name}. No skills are available.`,
        isError: true,
      };
    },
  });
}
