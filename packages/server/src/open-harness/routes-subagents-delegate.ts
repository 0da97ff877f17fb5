// Spawning a sub-agent and delegating tasks to it over the Open Harness API (spawned-subagents.ts).
// The answers:
//   spawn           201 { subagent } idle: `name` is one of the session's agent types (agents.list)
//   delegate        200 { execution_id, status, output, subagent } once its task has ended
//   delegateStream  SSE of its ExecutionEvents: text and thinking as the sub-agent writes, its tool
//                   calls, then an error when it failed or was stopped, and done
// Refused before anything runs: 400 a bad body (naming the field), 404 an unknown session or
// sub-agent, 403 a Task call the permission rules refuse or that would ask for approval, 409 while a
// run (or another call) is under way in the session or the sub-agent runs a task, 501 what is not
// taken (system_prompt, skills, context) and the claude-code backend. The task goes on when the
// request closes: terminate stops it.
import type { Context } from "hono";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { agentsOf } from "./routes-agents.ts";
import { ApiError } from "./errors.ts";
import { H, handle, refuseUnsupported, type OpenHarness } from "./common.ts";
import { spawnedShape, type Spawned } from "./spawned-subagents.ts";
import { streamFollowed } from "./sse.ts";
import { findSubagent, subagentScope } from "./subagent-lookup.ts";

const P = `${H}/agents/:agentId/subagents`;

const text = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);

const SpawnBody = z.strictObject({
  name: text(100),
  description: text(1000),
  model: text(100).optional(),
  system_prompt: z.unknown().optional(),
  skills: z.unknown().optional(),
});
const DelegateBody = z.strictObject({ task: text(100_000), context: z.unknown().optional() });

function builtinOnly(oh: OpenHarness, operation: string): void {
  if (oh.backend !== "builtin") throw new ApiError(501, "not_implemented", `sub-agents are spawned only with the builtin backend; this server runs ${oh.backend}`, operation);
}

/** The spawned sub-agent the path names, for a task. */
async function spawnedOf(oh: OpenHarness, c: Context, operation: string): Promise<Spawned> {
  const found = findSubagent(oh, c, await subagentScope(oh, c));
  if (found.kind === "run") throw new ApiError(409, "subagent_of_run", `sub-agent "${found.call.id}" was started by a run and takes no other task: spawn one to delegate to`, operation);
  return found.spawned;
}

async function taskOf(c: Context, operation: string): Promise<string> {
  const body = check(DelegateBody, await bodyOf(c));
  refuseUnsupported(body, ["context"], operation);
  return body.task;
}

export function mountSubagentDelegateRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    P,
    handle(async (c) => {
      const scope = await subagentScope(oh, c);
      const body = check(SpawnBody, await bodyOf(c));
      refuseUnsupported(body, ["system_prompt", "skills"], "subagents.spawn");
      builtinOnly(oh, "subagents.spawn");
      const types = (await agentsOf(oh, c)).map((agent) => agent.id);
      if (!types.includes(body.name)) {
        throw new ApiError(400, "invalid_request", `name: no agent type "${body.name}" for the session's runs; they have ${types.join(", ") || "none"}`, "subagents.spawn");
      }
      const spawned = oh.subagents.spawn(scope.userId, scope.sessionId, { name: body.name, description: body.description, ...(body.model !== undefined && { model: body.model }) });
      return c.json({ subagent: spawnedShape(spawned) }, 201);
    }),
  );
  app.post(
    `${P}/:subagentId/delegate`,
    handle(async (c) => {
      const operation = "subagents.delegate";
      const spawned = await spawnedOf(oh, c, operation);
      const task = await taskOf(c, operation);
      builtinOnly(oh, operation);
      const delegation = await oh.subagents.delegate(spawned, task, operation);
      await delegation.ended;
      return c.json({ execution_id: spawned.id, status: delegation.status, output: delegation.output, subagent: spawnedShape(spawned) });
    }),
  );
  app.post(
    `${P}/:subagentId/delegate/stream`,
    handle(async (c) => {
      const operation = "subagents.delegateStream";
      const spawned = await spawnedOf(oh, c, operation);
      const task = await taskOf(c, operation);
      builtinOnly(oh, operation);
      const delegation = await oh.subagents.delegate(spawned, task, operation);
      c.header("x-subagent-id", spawned.id);
      return streamFollowed(c, { listeners: delegation.listeners, items: () => delegation.events, ended: () => delegation.finished }, 0);
    }),
  );
}
