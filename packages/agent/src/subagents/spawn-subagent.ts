// Running a sub-agent: the same loop as the main agent, with a fresh conversation, the agent
// type's system prompt, tools and model, and its events stamped so a UI can nest them.
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Usage } from "@harness/protocol";
import { INTERRUPTED } from "../loop/execute-tool-calls.ts";
import { STRUCTURED_OUTPUT_TOOL_NAME } from "../harness/structured-output.ts";
import { EXIT_PLAN_MODE_TOOL_NAME } from "../plan-mode/texts.ts";
import type { runAgent as RunAgent } from "../loop/run-agent.ts";
import type { RunAgentOptions, RunAgentResult, Tool, ToolContext, ToolOutput } from "../types.ts";
import { emptyUsage } from "../loop/usage.ts";
import { defaultModelResolver, type ModelResolver } from "./agent-model.ts";
import { TASK_TOOL_NAME, type SubagentSpawner } from "./task-tool.ts";
import { TASK_OUTPUT_TOOL_NAME, TASK_STOP_TOOL_NAME } from "./background-task-tools.ts";
import type { AgentDefinition, SubagentOutput } from "./types.ts";

export type SubagentSpawnerDeps = {
  runAgent: typeof RunAgent;
  /** The main agent's run options, with its `model` and `provider` set (sub-agents inherit them).
   * Read at each spawn; every field not listed below is passed on unchanged (cwd, and whatever else
   * the host has put there). */
  parent: RunAgentOptions;
  /** Every tool the main agent has; a sub-agent gets the subset its definition allows, never Task. */
  allTools: readonly Tool[];
  /** Default: defaultModelResolver() (aliases → Claude ids, inherit → the parent's model). */
  resolveModel?: ModelResolver;
  /** The environment section appended to each sub-agent's system prompt; default: working
   * directory, platform, model and date. */
  environment?: (env: { cwd: string; model: string }) => string;
  /** Last say over a sub-agent run's options, for settings the spawner does not know of
   * (its permission mode, see subagentPermissionMode; hooks). */
  configure?: (options: RunAgentOptions, agent: AgentDefinition) => RunAgentOptions;
};

/** Builds the function that runs a Task call's sub-agent. The sub-agent:
 * - starts a fresh conversation whose only user message is the request's prompt;
 * - gets the definition's system prompt plus the environment section;
 * - gets the tools its definition allows out of `allTools`, never the Task tool (no recursion) nor
 *   ExitPlanMode (plan mode is the main conversation's);
 * - runs on the model its definition names (see resolveAgentModel);
 * - runs on the request's model when it names one (the Task call's `model`);
 * - stops when `ctx.signal` (the Task call's, i.e. the parent run's) fires;
 * - with `request.background`, runs detached in `ctx.backgroundAgents` (on a signal of its own that
 *   the run's also fires), the call answering at once with its id;
 * - emits through the parent's emit, every event stamped with its `agentId` (agent_<uuid>) and
 *   `parentToolUseId` (the Task call's toolUseId); its model events, told the parent's
 *   `onModelEvent`, are stamped the same way.
 * The output is its final reply (is_error when it failed, was cut short or ran out of turns), with
 * its usage, which the host adds to the parent's, and how many tool calls it made. Never rejects unless runAgent does. */
export function createSubagentSpawner(deps: SubagentSpawnerDeps): SubagentSpawner {
  const resolveModel = deps.resolveModel ?? defaultModelResolver();
  const environment = deps.environment ?? defaultEnvironment;
  return async (request, ctx: ToolContext) => {
    const { agent } = request;
    const parent = deps.parent;
    if (parent.model === undefined || parent.provider === undefined) {
      return { content: `Cannot start the ${agent.name} agent: the main agent's model and provider are not known.`, isError: true, usage: emptyUsage() };
    }
    const choice = request.model !== undefined ? resolveModel(request.model, { model: parent.model, provider: parent.provider }, "the Task call's model") : resolveModel(agent.model, { model: parent.model, provider: parent.provider });
    if ("error" in choice) return { content: `Cannot start the ${agent.name} agent: ${choice.error}`, isError: true, usage: emptyUsage() };

    const agentId = `agent_${randomUUID()}`;
    const parentToolUseId = ctx.toolUseId;
    const emitToParent = parent.emit;
    const observe = parent.onModelEvent;
    let toolUses = 0;
    let options: RunAgentOptions = {
      ...parent,
      prompt: request.prompt,
      history: [],
      provider: choice.provider,
      model: choice.model,
      systemPrompt: `${agent.systemPrompt}\n\n${environment({ cwd: parent.cwd, model: choice.model })}`,
      tools: subagentTools(agent, deps.allTools),
      signal: ctx.signal,
      emit: (event) => {
        if (event.type === "tool.started") toolUses++;
        emitToParent({ ...event, agentId, parentToolUseId });
      },
      ...(observe && { onModelEvent: (event) => observe(event, { agentId, parentToolUseId }) }),
      agent: { id: agentId, type: agent.name },
    };
    // The main run's options never carry a forked skill's part: only this request's counts.
    delete options.forkedSkill;
    if (request.forkedSkill) options.forkedSkill = request.forkedSkill;
    const maxTurns = agent.maxTurns ?? parent.maxTurns;
    if (maxTurns === undefined) delete options.maxTurns;
    else options.maxTurns = maxTurns;
    if (deps.configure) options = deps.configure(options, agent);

    const configured = options;
    const run = async (signal: AbortSignal): Promise<SubagentOutput> => {
      const result = await deps.runAgent({ ...configured, signal });
      return { ...outputOf(agent, result, configured.maxTurns), usage: result.usage, agentId, toolUses };
    };
    if (!request.background) return stoppable(ctx, run);
    const agents = ctx.backgroundAgents;
    if (!agents) return { content: "Background agents are not available in this run. Call Task again without run_in_background.", isError: true, usage: emptyUsage() };
    const started = agents.start({ id: agentId, description: request.description, agentType: agent.name }, (_id, signal) => run(signal));
    if ("error" in started) return { content: started.error, isError: true, usage: emptyUsage() };
    return { content: launchedText(agentId), agentId };
  };
}

/** `run` on the call's signal, or on that and the user's stop of this sub-agent alone
 * (ToolContext.agentStopped): stopped before it started, it never runs. */
function stoppable(ctx: ToolContext, run: (signal: AbortSignal) => Promise<SubagentOutput>): Promise<SubagentOutput> {
  const stopped = ctx.agentStopped;
  if (!stopped) return run(ctx.signal);
  if (stopped.aborted) return Promise.resolve({ content: INTERRUPTED, isError: true, usage: emptyUsage() });
  return run(AbortSignal.any([ctx.signal, stopped]));
}

/** The Task call's answer when its agent runs in the background. */
function launchedText(agentId: string): string {
  return `Async agent launched successfully.
agentId: ${agentId} (pass it to TaskOutput to wait for the result, or to TaskStop to stop the agent; it is internal, do not mention it to the user)
The agent is working in the background. You will be notified automatically when it completes; until then you know nothing of its results, so do not report, assume or predict them. Go on with other work that does not duplicate the agent's, or end your reply.`;
}

/** Tools only the main agent has. */
const MAIN_AGENT_TOOLS: ReadonlySet<string> = new Set([TASK_TOOL_NAME, TASK_OUTPUT_TOOL_NAME, TASK_STOP_TOOL_NAME, EXIT_PLAN_MODE_TOOL_NAME, STRUCTURED_OUTPUT_TOOL_NAME]);

/** The tools of `allTools` that `agent` may use, in their order in `allTools`. */
export function subagentTools(agent: AgentDefinition, allTools: readonly Tool[]): Tool[] {
  const allowed = agent.tools === undefined ? undefined : new Set(agent.tools);
  const denied = new Set(agent.disallowedTools ?? []);
  return allTools.filter((tool) => !MAIN_AGENT_TOOLS.has(tool.name) && (allowed === undefined || allowed.has(tool.name)) && !denied.has(tool.name));
}

/** The usage a Task call's output carries, if it ran a sub-agent. */
export function subagentUsage(output: ToolOutput): Usage | undefined {
  const usage = (output as SubagentOutput).usage;
  return usage && typeof usage.inputTokens === "number" && typeof usage.outputTokens === "number" ? usage : undefined;
}

function outputOf(agent: AgentDefinition, result: RunAgentResult, maxTurns: number | undefined): ToolOutput {
  const text = result.result.trim();
  switch (result.stopReason) {
    case "end_turn":
      return { content: text || `The ${agent.name} agent finished without a final message.` };
    case "aborted":
      return { content: INTERRUPTED, isError: true };
    case "max_turns":
      return {
        content: withNote(text, `The ${agent.name} agent stopped before finishing the task: it used up its ${maxTurns === undefined ? "model turns" : `${maxTurns} model turn${maxTurns === 1 ? "" : "s"}`}.`),
        isError: true,
      };
    case "max_budget":
    case "error":
      return { content: withNote(text, `The ${agent.name} agent failed: ${result.errorMessage ?? "unknown error"}`), isError: true };
  }
}

function withNote(text: string, note: string): string {
  return text ? `${text}\n\n[${note}]` : note;
}

function defaultEnvironment(env: { cwd: string; model: string }): string {
  return `# Environment
- Working directory: ${env.cwd} (relative paths in tool calls resolve against it)
- Platform: ${os.platform()} ${os.release()}
- Shell: bash
- Model: ${env.model}
- Today's date: ${new Date().toISOString().slice(0, 10)}`;
}
