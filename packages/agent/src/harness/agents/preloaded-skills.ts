// An agent file's `skills`: a sub-agent of that type starts with their full text, before its task,
// as Claude Code preloads them (it does not inherit the main conversation's skills).
import type { DocumentBlock, ImageBlock, TextBlock } from "@harness/llm";
import { shellCommands } from "../../commands/shell-syntax.ts";
import { skillPrompt } from "../../skills/skill-tool.ts";
import { expandCommandText } from "../commands/text.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** The blocks of the skills the sub-agent's definition names, each as its Skill call would give
 * it (its `!` commands run, the files it mentions attached). A name that matches no skill is said
 * and left out: the sub-agent still starts. */
export async function preloadedSkills(ctx: RunContext, state: RunState): Promise<(TextBlock | ImageBlock | DocumentBlock)[]> {
  const type = ctx.options.agent?.type;
  const agent = type === undefined ? undefined : ctx.setup.agents.find((candidate) => candidate.name === type);
  const blocks: (TextBlock | ImageBlock | DocumentBlock)[] = [];
  for (const name of agent?.skills ?? []) {
    const skill = ctx.setup.skills.find((candidate) => candidate.name === name);
    if (!skill) {
      ctx.notice("warning", `The agent ${agent!.name} names the skill ${name}, which is not found; it starts without it.`);
      continue;
    }
    const expanded = await expandCommandText(ctx, state, skillPrompt(skill, "", ctx.setup.sessionId), shellCommands(skill.body).length > 0);
    blocks.push({ type: "text", text: `The skill ${skill.name}, loaded for this task:\n\n${expanded.text}` }, ...expanded.images);
  }
  return blocks;
}
