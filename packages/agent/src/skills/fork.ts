// Skills with `context: fork`: the skill's prompt is the task of a sub-agent, and only that
// sub-agent's final answer comes back to the conversation.
import { asSubagentHooks } from "../hooks/parse-config.ts";
import { findAgent } from "../subagents/task-tool.ts";
import type { AgentDefinition, ForkedSkillTask, SubagentOutput, SubagentRequest } from "../subagents/types.ts";
import type { ToolAttachment } from "../types.ts";
import { asksToThink } from "../ultrathink.ts";
import type { Skill } from "./types.ts";

/** Runs `prompt` (the skill's, made ready, with the `images` its mentions read) in the sub-agent
 * `skill` names, on the skill's model when it names one, with the skill's hooks and, when its text
 * says "ultrathink", thinking. Answers with an error when that agent is not defined. */
export async function runForkedSkill(
  skill: Skill & { fork: { agent: string } },
  prompt: string,
  agents: readonly AgentDefinition[],
  spawn: (request: SubagentRequest) => Promise<SubagentOutput>,
  images: readonly ToolAttachment[] = [],
): Promise<SubagentOutput> {
  const defined = findAgent(agents, skill.fork.agent);
  if (!defined) {
    const names = agents.map((agent) => agent.name).join(", ") || "none";
    return { content: `The skill ${skill.name} runs in the agent ${skill.fork.agent}, which is not defined (agents: ${names}). Fix its agent: field, or run its instructions yourself.`, isError: true };
  }
  const agent = skill.model ? { ...defined, model: skill.model } : defined;
  const task: ForkedSkillTask = {
    ...(images.length > 0 && { images: [...images] }),
    ...(skill.hooks && { hooks: asSubagentHooks(skill.hooks) }),
    ...(asksToThink(prompt) && { asksToThink: true }),
  };
  return spawn({ description: `Skill ${skill.name}`, prompt, agent, ...(Object.keys(task).length > 0 && { forkedSkill: task }) });
}

export function isForked(skill: Skill): skill is Skill & { fork: { agent: string } } {
  return skill.fork !== undefined;
}
