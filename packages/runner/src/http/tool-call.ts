// POST /tools/invoke: one of the session's tools called directly (see @harness/protocol
// runner-tools.ts). The call is a run of the runner's: while it goes, a query (or another call) is
// refused as busy, and GET /runs/:id/events re-attaches to it; closing the request stops it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_TOOL_CALL_BYTES, RunnerToolCallSchema, type AgentEvent } from "@harness/protocol";
import type { RunnerDeps } from "./deps.ts";
import { readJson, sendError } from "./http.ts";
import { cwdProblem } from "./query-cwd.ts";
import { streamLog } from "./sse-response.ts";

/** The answer to a call refused before it runs, by the agent's reason. */
const STATUS = { unknown_tool: 404, invalid_input: 400, refused: 422 } as const;

export async function handleToolCall(req: IncomingMessage, res: ServerResponse, deps: RunnerDeps): Promise<void> {
  const call = await readJson(req, res, RunnerToolCallSchema, MAX_TOOL_CALL_BYTES);
  if (!call) return;
  const selected = deps.backends.select(call.backend);
  if (!selected.ok) return sendError(res, 400, selected.error);
  const badCwd = call.cwd === undefined ? undefined : cwdProblem(call.cwd, deps.workspace);
  if (badCwd) return sendError(res, 400, badCwd);
  const busy = deps.busyWith();
  if (busy !== undefined) return sendError(res, 409, busy);
  if (call.requestId !== undefined && deps.runs.get(call.requestId)) return sendError(res, 409, `a run with requestId ${call.requestId} exists already`);

  // Taken at once, so that nothing else starts while the configuration loads.
  const run = deps.runs.create(call.requestId);
  const early: AgentEvent[] = [];
  let streaming = false;
  const emit = (event: AgentEvent) => {
    if (run.log.ended) return;
    if (streaming) run.log.append(event);
    else early.push(event);
  };
  // A client gone while the configuration loads has the call stopped before it starts.
  const gone = () => run.controller.abort();
  res.once("close", gone);
  try {
    let prepared;
    try {
      prepared = await selected.backend.prepareTool?.(call, {
        signal: run.controller.signal,
        emit,
        workspace: deps.workspace,
        stateDir: deps.stateDir,
        toolUseId: `direct_${run.requestId}`,
      });
    } catch (error) {
      return sendError(res, 500, `the tool call could not be prepared: ${errorText(error)}`);
    }
    if (!prepared) return sendError(res, 501, `the ${selected.backend.name} backend runs no tool by itself`);
    if (!prepared.ok) return sendError(res, STATUS[prepared.problem], prepared.message);
    // Run even when the client has gone meanwhile: it ends at once as interrupted, releasing what it holds.
    res.off("close", gone);
    streamLog(res, run.log, [], () => run.controller.abort());
    streaming = true;
    run.log.append({ type: "run.started", requestId: run.requestId });
    for (const event of early) run.log.append(event);
    const outcome = await prepared.run();
    if (run.controller.signal.aborted) run.log.append({ type: "run.error", message: "cancelled" });
    else run.log.append({ type: "run.completed", result: outcome.output });
  } finally {
    res.off("close", gone);
    deps.runs.finish(run);
    deps.activity();
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
