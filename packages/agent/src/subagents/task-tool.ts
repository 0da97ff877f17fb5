// Claude Code's Task tool: the model hands a task to a sub-agent of a named type and gets the
// sub-agent's final reply back as the tool result, or (run_in_background) its id at once and the
// reply later (see background-agents.ts).
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import type { Tool, ToolContext } from "../types.ts";
import { taskDescription } from "./task-description.ts";
import type { AgentDefinition, SubagentOutput, SubagentRequest } from "./types.ts";

export const TASK_TOOL_NAME = "Task";

const TaskParameters = z.strictObject({
  description: z.string().min(1).describe("A short (3-5 word) description of the task"),
  prompt: z.string().min(1).describe("The task for the agent to perform"),
  subagent_type: z.string().min(1).describe("The type of specialized agent to use for this task"),
  // As an agent file's `model` (parse-agent-file.ts): resolved, and held to availableModels, by the host.
  model: z
    .string({ error: (issue) => `must be sonnet, opus, haiku, inherit or a model id, but got ${typeof issue.input}` })
    .trim()
    .min(1, "must be sonnet, opus, haiku, inherit or a model id, not empty")
    .optional()
    .describe('The model for this agent: "sonnet", "opus", "haiku" or a model id; it overrides the agent type\'s own model. Leave it out to use that one'),
  run_in_background: z.boolean().optional().describe("Run the agent in the background and go on at once; you are notified when it finishes"),
});

/** Runs a sub-agent for one Task call (see createSubagentSpawner). */
export type SubagentSpawner = (request: SubagentRequest, ctx: ToolContext) => Promise<SubagentOutput>;

/** The Task tool over these agent types. It runs the sub-agent through `ctx.spawnSubagent`, and
 * answers with an error when that is missing or when `subagent_type` names no agent. */
export function taskTool(agents: readonly AgentDefinition[]): Tool {
  const known = agents.slice();
  const tool = defineTool({
    name: TASK_TOOL_NAME,
    description: taskDescription(known),
    parameters: TaskParameters,
    async execute({ description, prompt, subagent_type, model, run_in_background }, ctx): Promise<SubagentOutput> {
      const agent = findAgent(known, subagent_type);
      if (!agent) {
        const names = known.map((a) => a.name).join(", ") || "none";
        return { content: `Unknown subagent_type "${subagent_type}". Available agent types: ${names}. Call Task again with one of them.`, isError: true };
      }
      if (!ctx.spawnSubagent) {
        return { content: "Sub-agents are not available in this run. Do the task yourself with your other tools.", isError: true };
      }
      return ctx.spawnSubagent({ description, prompt, agent, ...(model !== undefined && { model }), ...(run_in_background && { background: true }) });
    },
  });
  return { ...tool, stopsAlone: true };
}

/** The exact name, else the one name that matches ignoring case ("explore" → Explore). */
export function findAgent(agents: readonly AgentDefinition[], name: string): AgentDefinition | undefined {
  const exact = agents.find((agent) => agent.name === name);
  if (exact) return exact;
  const lower = name.trim().toLowerCase();
  const loose = agents.filter((agent) => agent.name.toLowerCase() === lower);
  return loose.length === 1 ? loose[0] : undefined;
}

/** `tool` (the Task tool) with `spawn` bound into its context, for hosts whose loop does not set
 * `ToolContext.spawnSubagent` itself. A context that already has one keeps it. */
export function bindSpawner(tool: Tool, spawn: SubagentSpawner): Tool {
  return {
    ...tool,
    execute: (args, ctx) => tool.execute(args, ctx.spawnSubagent ? ctx : { ...ctx, spawnSubagent: (request) => spawn(request, ctx) }),
  };
}
