// Sub-agents spawned over the API: an agent type of a session, idle until a task is delegated to
// it, which then runs as a Task call of the session's main agent would, made directly on the
// session's runner (tool-invoke.ts). Kept in memory while their session is, at most MAX_SPAWNED a
// user and MAX_SPAWNED_IN_ALL in all (the oldest not running go first).
import type { RunnerEvent } from "@harness/protocol";
import { Delegation } from "./delegation.ts";
import { ApiError } from "./errors.ts";
import { MAIN_AGENT, type SubagentResult, type SubagentShape } from "./subagent-calls.ts";
import type { ToolInvoker } from "./tool-invoke.ts";

export const MAX_SPAWNED = 100;
/** The most kept across users (each holds its last task's events). */
export const MAX_SPAWNED_IN_ALL = 1000;

export type Spawned = {
  id: string;
  userId: string;
  sessionId: string;
  /** The agent type. */
  name: string;
  description: string;
  model?: string;
  createdAt: string;
  /** The last task delegated to it. */
  delegation?: Delegation;
  /** A task being delegated, until its Task call has started: what stops it, and when it settles. */
  starting?: { controller: AbortController; settled: Promise<unknown> };
};

export function createSpawnedSubagents(invokeTool: ToolInvoker) {
  const byId = new Map<string, Spawned>();

  /** Lets go of the oldest of `among` that runs nothing; false when each runs a task. */
  function dropOldestIdle(among: Iterable<Spawned>): boolean {
    for (const spawned of among) {
      if (spawned.starting || (spawned.delegation && !spawned.delegation.finished)) continue;
      byId.delete(spawned.id);
      return true;
    }
    return false;
  }

  function spawn(userId: string, sessionId: string, fields: { name: string; description: string; model?: string }): Spawned {
    const mine = [...byId.values()].filter((spawned) => spawned.userId === userId);
    if (mine.length >= MAX_SPAWNED && !dropOldestIdle(mine)) {
      throw new ApiError(409, "too_many_subagents", `${MAX_SPAWNED} spawned sub-agents are running: terminate one first`, "subagents.spawn");
    }
    if (byId.size >= MAX_SPAWNED_IN_ALL && !dropOldestIdle(byId.values())) {
      throw new ApiError(503, "server_busy", `the server runs as many spawned sub-agents as it takes (${MAX_SPAWNED_IN_ALL}): try again once one has ended`, "subagents.spawn");
    }
    const spawned: Spawned = { id: `subagent_${crypto.randomUUID()}`, userId, sessionId, ...fields, createdAt: new Date().toISOString() };
    byId.set(spawned.id, spawned);
    return spawned;
  }

  /** The user's sub-agent `id` spawned in the session; undefined for any other. */
  function get(userId: string, sessionId: string, id: string): Spawned | undefined {
    const spawned = byId.get(id);
    return spawned && spawned.userId === userId && spawned.sessionId === sessionId ? spawned : undefined;
  }

  /** Lets go of the sub-agents spawned in a session that was deleted (whose tasks ended with it). */
  function forgetSession(userId: string, sessionId: string): void {
    for (const spawned of [...byId.values()]) if (spawned.userId === userId && spawned.sessionId === sessionId) byId.delete(spawned.id);
  }

  const list = (userId: string, sessionId: string) => [...byId.values()].filter((spawned) => spawned.userId === userId && spawned.sessionId === sessionId);

  /** Removes `spawned`; a task of its still starting is stopped first (its delegate answered 409). */
  async function remove(spawned: Spawned): Promise<void> {
    byId.delete(spawned.id);
    const { starting } = spawned;
    if (!starting) return;
    starting.controller.abort();
    await starting.settled.catch(() => {});
  }

  /** Runs `task` by `spawned`; answers once its Task call has started (its events go on), or
   * throws the refusal (a run under way, a call the permissions refuse) before anything ran. */
  async function delegate(spawned: Spawned, task: string, operation: string): Promise<Delegation> {
    if (spawned.starting || (spawned.delegation && !spawned.delegation.finished)) throw new ApiError(409, "subagent_running", `sub-agent "${spawned.id}" is running a task: wait for its result, or terminate it`, operation);
    const controller = new AbortController();
    const started = start(spawned, task, controller, operation);
    spawned.starting = { controller, settled: started };
    try {
      return await started;
    } finally {
      spawned.starting = undefined;
    }
  }

  async function start(spawned: Spawned, task: string, controller: AbortController, operation: string): Promise<Delegation> {
    const input = { description: spawned.description, prompt: task, subagent_type: spawned.name, ...(spawned.model !== undefined && { model: spawned.model }) };
    const events = invokeTool({ userId: spawned.userId, sessionId: spawned.sessionId, toolName: "Task", input, signal: controller.signal, operation });
    const early: RunnerEvent[] = [];
    try {
      for (;;) {
        // Terminated while it starts: nothing of the task is to run.
        if (controller.signal.aborted) throw terminated(spawned, operation);
        const next = await events.next();
        if (next.done) break;
        const event = next.value;
        early.push(event);
        if ("parentToolUseId" in event && event.parentToolUseId !== undefined) continue;
        if (event.type === "tool.started") break;
        if (event.type === "tool.completed" && event.denied) throw refusal(event, operation);
        if (event.type === "run.error") throw new ApiError(502, "runner_error", `the sub-agent did not start: ${event.message}`, operation);
      }
      if (controller.signal.aborted) throw terminated(spawned, operation);
    } catch (error) {
      const stopped = controller.signal.aborted;
      controller.abort();
      await events.return(undefined);
      throw stopped ? terminated(spawned, operation) : error;
    }
    const delegation = new Delegation(task, controller);
    spawned.delegation = delegation;
    for (const event of early) delegation.take(event);
    void (async () => {
      try {
        for (let next = await events.next(); !next.done; next = await events.next()) delegation.take(next.value);
        delegation.close();
      } catch (error) {
        delegation.close((error as Error).message);
      }
    })();
    return delegation;
  }

  return { spawn, get, list, remove, delegate, forgetSession };
}

export type SpawnedSubagents = ReturnType<typeof createSpawnedSubagents>;

const terminated = (spawned: Spawned, operation: string) => new ApiError(409, "subagent_terminated", `sub-agent "${spawned.id}" was terminated before its task started`, operation);

function refusal(completed: Extract<RunnerEvent, { type: "tool.completed" }>, operation: string): ApiError {
  if (!completed.needsApproval) return new ApiError(403, "permission_denied", completed.output, operation);
  const how = "allow Task with a permission rule in the session's settings, or set the session's permission mode (acceptEdits, fullAuto)";
  return new ApiError(403, "approval_required", `the Task call needs approval here, and a delegation asks no one: ${how}. ${completed.output}`, operation);
}

const STATUS = { running: "running", completed: "completed", failed: "failed", cancelled: "failed", pending: "running" } as const;

export function spawnedShape(spawned: Spawned): SubagentShape {
  const { delegation } = spawned;
  return {
    id: spawned.id,
    name: spawned.name,
    description: spawned.description,
    status: delegation ? STATUS[delegation.status] : "idle",
    parent_agent_id: MAIN_AGENT,
    created_at: spawned.createdAt,
    session_id: spawned.sessionId,
    ...(delegation && { prompt: delegation.task }),
    ...(spawned.model !== undefined && { model: spawned.model }),
    ...(delegation && { started_at: delegation.startedAt }),
    ...(delegation?.completedAt !== undefined && { completed_at: delegation.completedAt }),
  };
}

/** The result of `spawned`'s last task, once it has ended. */
export function spawnedResult(spawned: Spawned, delegation: Delegation): SubagentResult {
  return { execution_id: spawned.id, status: delegation.status, output: delegation.output, artifacts: [], tool_calls: delegation.summaries(), usage: delegation.usage };
}
