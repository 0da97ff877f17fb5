// POST /query: starts a run and streams its events. Closing the request cancels the run, unless the
// query asked to keep running (then only POST /runs/:id/cancel does, and GET /runs/:id/events
// re-attaches).
import type { IncomingMessage, ServerResponse } from "node:http";
import { KEEP_RUNNING_HEADER, RunnerQuerySchema, type AgentEvent, type RunnerEventPayload, type RunnerQuery } from "@harness/protocol";
import type { Backend, BackendContext, RunOutcome } from "./backend.ts";
import { GIT_NEEDED_MESSAGE } from "./checkpoints/checkpoints.ts";
import { BUSY_MESSAGE, type RunnerDeps } from "./deps.ts";
import { readJson, sendError } from "./http.ts";
import type { Run } from "./runs.ts";
import { streamLog } from "./sse-response.ts";
import { createTurnGate } from "./turn-gate.ts";

export const MAX_QUERY_BYTES = 8 * 1024 * 1024;

/** Runs start (set up, call the model) one per event-loop turn. */
const startTurn = createTurnGate();

export async function handleQuery(req: IncomingMessage, res: ServerResponse, deps: RunnerDeps): Promise<void> {
  const query = await readJson(req, res, RunnerQuerySchema, MAX_QUERY_BYTES);
  if (!query) return;
  const selected = deps.backends.select(query.backend);
  if (!selected.ok) return sendError(res, 400, selected.error);
  if (deps.busy()) return sendError(res, 409, BUSY_MESSAGE);
  if (query.requestId !== undefined && deps.runs.get(query.requestId)) {
    return sendError(res, 409, `a run with requestId ${query.requestId} exists already`);
  }

  const run = deps.runs.create(query.requestId);
  const keepRunning = req.headers[KEEP_RUNNING_HEADER] === "1";
  streamLog(res, run.log, [], keepRunning ? undefined : () => run.controller.abort());
  run.log.append({ type: "run.started", requestId: run.requestId });
  try {
    await execute(run, query, selected.backend, deps);
  } finally {
    deps.runs.finish(run);
    deps.activity();
  }
}

async function execute(run: Run, query: RunnerQuery, backend: Backend, deps: RunnerDeps): Promise<void> {
  let finished = false;
  const emit = (event: AgentEvent) => {
    if (!finished) run.log.append(event);
  };

  const ctx: BackendContext = {
    signal: run.controller.signal,
    emit,
    workspace: deps.workspace,
    stateDir: deps.stateDir,
    ...(query.interactive === true && { requestApproval: (request) => run.approvals.request(request) }),
    steering: run.steering,
    onConfigure: (listener) => run.configure.subscribe(listener),
  };
  let outcome: RunOutcome;
  try {
    const messageId = query.userMessageId;
    if (messageId !== undefined && backend.checkpointsOnChange) {
      if (await reserve(messageId, backend, deps, emit)) {
        let taken: Promise<void> | undefined;
        ctx.beforeChanges = () => (taken ??= checkpoint(messageId, backend, deps, emit));
      }
    } else if (messageId !== undefined) {
      await checkpoint(messageId, backend, deps, emit);
    }
    await startTurn();
    outcome = run.controller.signal.aborted ? { ok: false, message: "cancelled" } : await backend.run(query, ctx);
  } catch (err) {
    outcome = { ok: false, message: errorText(err) };
  }
  for (const message of run.steering.take()) {
    emit(notice(`This message arrived as the run was ending and did not reach the model: ${message}`));
  }
  finished = true;
  run.log.append(outcomeEvent(outcome));
}

/** Snapshots the workspace (before the run, or before its first change); a failure is told to the
 * user, and the run goes on. */
async function checkpoint(userMessageId: string, backend: Backend, deps: RunnerDeps, emit: (event: AgentEvent) => void): Promise<void> {
  const taken = await deps.checkpoints.beforeRun(userMessageId, backend.name).catch((error: unknown) => ({
    ok: false as const,
    message: errorText(error),
  }));
  if (!taken.ok) emit(notice(`${NOT_TAKEN}: ${taken.message}`));
  else if (taken.value.tree === undefined) emit(notice(`File checkpoints are off: ${GIT_NEEDED_MESSAGE}.`));
}

/** Records the run's checkpoint as pending (the backend takes it before its first change). False,
 * with a notice, when no snapshot can be taken for it. */
async function reserve(userMessageId: string, backend: Backend, deps: RunnerDeps, emit: (event: AgentEvent) => void): Promise<boolean> {
  try {
    await deps.checkpoints.reserve(userMessageId, backend.name);
  } catch (error) {
    emit(notice(`${NOT_TAKEN}: ${errorText(error)}`));
    return false;
  }
  if (await deps.checkpoints.available()) return true;
  emit(notice(`File checkpoints are off: ${GIT_NEEDED_MESSAGE}.`));
  return false;
}

const NOT_TAKEN = "No file checkpoint was taken for this run, so its changes cannot be rewound";

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function notice(message: string): AgentEvent {
  return { type: "notice", level: "warning", message };
}

function outcomeEvent(outcome: RunOutcome): RunnerEventPayload {
  if (!outcome.ok) return { type: "run.error", message: outcome.message, transcript: outcome.transcript, ...(outcome.usage && { usage: outcome.usage }) };
  return {
    type: "run.completed",
    result: outcome.result,
    usage: outcome.usage,
    transcript: outcome.transcript,
    sessionId: outcome.sessionId,
    turns: outcome.turns,
    model: outcome.model,
  };
}
