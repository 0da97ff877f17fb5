// Where the sub-agents routes find a session's sub-agents: the Task calls of its executions' runs,
// and those spawned over the API. Every route names the parent agent (only the session's main agent
// has sub-agents) and the session (session_id in the query).
import type { Context } from "hono";
import { ApiError } from "./errors.ts";
import type { DetailedToolCall } from "./execution-record.ts";
import type { Execution } from "./executions.ts";
import { harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { SessionQuery, ownSession } from "./session-of.ts";
import type { Spawned } from "./spawned-subagents.ts";
import { MAIN_AGENT, taskCalls } from "./subagent-calls.ts";

export type SubagentScope = { userId: string; sessionId: string };

export type FoundSubagent =
  | { kind: "run"; execution: Execution; call: DetailedToolCall; calls: DetailedToolCall[] }
  | { kind: "spawned"; spawned: Spawned };

/** The user and session a request names, its parent agent checked. */
export async function subagentScope(oh: OpenHarness, c: Context): Promise<SubagentScope> {
  harnessOf(c);
  const agentId = c.req.param("agentId");
  if (agentId !== MAIN_AGENT) {
    throw new ApiError(404, "agent_not_found", `no parent agent "${agentId}": sub-agents are started by the main agent of a session's runs, agent "${MAIN_AGENT}" (a sub-agent starts none)`);
  }
  const { session_id } = queryOf(c, SessionQuery);
  return { userId: await ownSession(oh, c, session_id), sessionId: session_id };
}

/** The session's executions with their tool calls, the oldest first. */
export function runsOf(oh: OpenHarness, { userId, sessionId }: SubagentScope): { execution: Execution; calls: DetailedToolCall[] }[] {
  return oh.executions
    .list(userId)
    .filter((execution) => execution.sessionId === sessionId)
    .reverse()
    .map((execution) => ({ execution, calls: execution.watch.detailed() }));
}

/** The sub-agent the path names (:subagentId), or 404. */
export function findSubagent(oh: OpenHarness, c: Context, scope: SubagentScope): FoundSubagent {
  const id = c.req.param("subagentId")!;
  const spawned = oh.subagents.get(scope.userId, scope.sessionId, id);
  if (spawned) return { kind: "spawned", spawned };
  for (const { execution, calls } of runsOf(oh, scope)) {
    const call = taskCalls(calls).find((candidate) => candidate.id === id);
    if (call) return { kind: "run", execution, call, calls };
  }
  throw new ApiError(404, "subagent_not_found", `no sub-agent "${id}" in session "${scope.sessionId}" (those its executions' runs started are kept as long as the executions, an hour after they end)`);
}
