// A skill with `context: fork` that the user typed (/name): its sub-agent runs before the model is
// asked, shown as a Skill call, and the model gets the typed prompt with that sub-agent's answer.
import { randomUUID } from "node:crypto";
import type { TextBlock } from "@harness/llm";
import { isForked, runForkedSkill } from "../../skills/fork.ts";
import type { Skill } from "../../skills/types.ts";
import { addUsage } from "../../loop/usage.ts";
import type { ExpandedText } from "../mentions/expanded-text.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** Runs the skill's `task` (its prompt, made ready, with the images its mentions read) in its
 * sub-agent and returns what the model is given with the typed prompt: the sub-agent's answer, or
 * why there is none. */
export async function forkedSkillAnswer(ctx: RunContext, state: RunState, fork: { skill: Skill; args: string }, task: ExpandedText): Promise<TextBlock> {
  const { skill, args } = fork;
  const spawner = ctx.spawner;
  if (!isForked(skill) || !spawner) return { type: "text", text: task.text };
  const toolUseId = `toolu_skill_${randomUUID().replaceAll("-", "")}`;
  state.emit({ type: "tool.started", toolName: "Skill", toolUseId, input: { skill: skill.name, ...(args && { args }) } });
  const output = await runForkedSkill(
    skill,
    task.text,
    ctx.setup.agents,
    (request) => spawner(request, { cwd: ctx.setup.cwd, signal: ctx.options.signal, toolUseId }),
    task.images,
  );
  if (output.usage) addUsage(state.usage, output.usage);
  state.emit({ type: "tool.completed", toolUseId, output: output.content, isError: output.isError === true });
  const how = output.isError ? "did not finish" : "finished";
  return { type: "text", text: `<skill-result name="${skill.name}" agent="${skill.fork.agent}">\nThe skill ran in a sub-agent, which ${how}. Its answer:\n\n${output.content}\n</skill-result>` };
}
