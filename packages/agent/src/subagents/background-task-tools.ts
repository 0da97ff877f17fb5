// Claude Code's TaskOutput and TaskStop: the main agent waits for a background agent's result, or
// stops it. TaskStop also stops a background shell, as Claude Code's does (KillShell's shell_id
// taken too).
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { killShellTool } from "../tools/shell/kill-shell.ts";
import type { ToolContext, ToolOutput } from "../types.ts";
import type { BackgroundAgent } from "./background-agents.ts";
import { outputText } from "./task-notification.ts";

export const TASK_OUTPUT_TOOL_NAME = "TaskOutput";
export const TASK_STOP_TOOL_NAME = "TaskStop";

const DEFAULT_WAIT_MS = 30_000;
const MAX_WAIT_MS = 600_000;

const outputDescription = `Gets the result of a background agent started by Task with run_in_background.

Usage:
- task_id is the agentId the Task call returned.
- By default it waits for the agent to finish, up to timeout milliseconds (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS}); block: false answers at once with the agent's status.
- You are notified of each background agent that finishes anyway: use this only when you cannot go on without its result.`;

export const taskOutputTool = defineTool({
  name: TASK_OUTPUT_TOOL_NAME,
  readOnly: true,
  description: outputDescription,
  parameters: z.strictObject({
    task_id: z.string().min(1).describe("The agentId of the background agent"),
    block: z.boolean().optional().describe("Whether to wait for it to finish (default true)"),
    timeout: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe(`How long to wait, in milliseconds (default ${DEFAULT_WAIT_MS})`),
  }),
  async execute({ task_id, block = true, timeout = DEFAULT_WAIT_MS }, ctx) {
    const agent = ctx.backgroundAgents?.get(task_id);
    if (!agent) {
      if (ctx.state?.shells.has(task_id)) return { content: `${task_id} is a background shell: read its output with BashOutput.`, isError: true };
      return unknownTask(task_id, ctx);
    }
    if (block && agent.status === "running") {
      const wait = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeout)]);
      while (agent.status === "running" && !wait.aborted) await ctx.backgroundAgents!.nextEnd(wait);
    }
    const head = [`<task_id>${agent.id}</task_id>`, "<task_type>local_agent</task_type>", `<status>${agent.status}</status>`];
    if (agent.status === "running") return { content: [`<retrieval_status>${block ? "timeout" : "not_ready"}</retrieval_status>`, ...head].join("\n") };
    agent.delivered = true;
    return { content: ["<retrieval_status>success</retrieval_status>", ...head, `<output>\n${outputText(agent)}\n</output>`].join("\n") };
  },
});

const stopDescription = `Stops a background task by its ID: an agent started by Task with run_in_background (its agentId), or a shell started by Bash with run_in_background (its shell ID).

Use it for work you no longer need. A stopped agent sends no notification.`;

export const taskStopTool = defineTool({
  name: TASK_STOP_TOOL_NAME,
  description: stopDescription,
  parameters: z.strictObject({
    task_id: z.string().min(1).optional().describe("The ID of the background task to stop"),
    shell_id: z.string().min(1).optional().describe("Deprecated: use task_id"),
  }),
  async execute({ task_id, shell_id }, ctx) {
    const id = task_id ?? shell_id;
    if (id === undefined) return { content: "Give task_id: the ID of the background agent or shell to stop.", isError: true };
    const agent = ctx.backgroundAgents?.get(id);
    if (!agent) {
      if (ctx.state?.shells.has(id)) return killShellTool.execute({ shell_id: id }, ctx);
      return unknownTask(id, ctx);
    }
    if (!agent.stop()) return { content: `The background agent ${id} (${agent.description}) is not running (status: ${agent.status}), so there is nothing to stop.`, isError: true };
    agent.delivered = true;
    return { content: `Stopped the background agent ${id} (${agent.description}).` };
  },
});

function unknownTask(id: string, ctx: ToolContext): ToolOutput {
  const agents: readonly BackgroundAgent[] = ctx.backgroundAgents?.list() ?? [];
  const list = agents.length > 0 ? ` Background agents:\n${agents.map((agent) => `${agent.id} (${agent.status}): ${agent.description}`).join("\n")}` : " No background agents have been started in this run.";
  return { content: `No background task with ID ${JSON.stringify(id)}.${list}`, isError: true };
}
