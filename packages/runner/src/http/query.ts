// POST /query: starts a run and streams its events. Closing the request cancels the run, unless the
// query asked to keep running (then only POST /runs/:id/cancel does, and GET /runs/:id/events
// re-attaches).
import type { IncomingMessage, ServerResponse } from "node:http";
import { HISTORY_GONE_STATUS, KEEP_RUNNING_HEADER, RunnerQuerySchema, type AgentEvent, type RunnerQuery } from "@harness/protocol";
import type { Backend, BackendContext, RunOutcome } from "../backend.ts";
import { GIT_NEEDED_MESSAGE } from "../checkpoints/checkpoints.ts";
import type { RunnerDeps } from "./deps.ts";
import { parseJsonBody, readBody } from "./body.ts";
import { cwdProblem } from "./query-cwd.ts";
import { refuse, sendError } from "./http.ts";
import { quoteId } from "./ids.ts";
import { lastEvent, type RunHistory } from "../runs/end.ts";
import type { Run } from "../runs/runs.ts";
import { streamLog } from "./sse-response.ts";
import { keepFinishedRun } from "../runs/finished-runs.ts";
import { createTurnGate } from "../turn-gate.ts";
import { abortedMessage } from "../runs/abort-reason.ts";
import { labelledRun } from "../debug-setting.ts";
import { withTelemetry } from "../telemetry/active.ts";
import { trackFileChanges } from "../runs/file-changes.ts";

export const MAX_QUERY_BYTES = 8 * 1024 * 1024;

/** Runs start (set up, call the model) one per event-loop turn. */
const startTurn = createTurnGate();

export async function handleQuery(req: IncomingMessage, res: ServerResponse, deps: RunnerDeps): Promise<void> {
  // Any other value would silently leave the run tied to its request, to be cancelled when it closes.
  const keep = req.headers[KEEP_RUNNING_HEADER];
  if (keep !== undefined && keep !== "1" && keep !== "0") {
    return refuse(req, res, 400, `${KEEP_RUNNING_HEADER}: must be 1 (the run outlives its request) or 0, got ${quoteId(String(keep))}`);
  }
  const keepRunning = keep === "1";
  const body = await readBody(req, MAX_QUERY_BYTES);
  const parsed = body.ok ? parseJsonBody(body.value, RunnerQuerySchema) : body;
  if (!parsed.ok) {
    if (parsed.status) sendError(res, parsed.status, parsed.error);
    return;
  }
  let query = parsed.value;
  const selected = deps.backends.select(query.backend);
  if (!selected.ok) return sendError(res, 400, selected.error);
  const badCwd = query.cwd === undefined ? undefined : cwdProblem(query.cwd, deps.workspace);
  if (badCwd) return sendError(res, 400, badCwd);
  const busy = deps.busyWith();
  if (busy !== undefined) return sendError(res, 409, busy);
  if (query.requestId !== undefined && deps.runs.get(query.requestId)) {
    return sendError(res, 409, `a run with requestId ${query.requestId} exists already`);
  }
  // The query's JSON stands for the size of the history it carries.
  let history: RunHistory = { messages: query.history ?? [], bytes: body.ok ? body.value.length : 0 };
  if (query.historyId !== undefined) {
    const kept = deps.transcripts.get(query.historyId);
    if (!kept) return sendError(res, HISTORY_GONE_STATUS, `this runner does not keep transcript ${query.historyId} (any more): send the history`);
    history = { messages: kept.transcript, bytes: kept.bytes };
    query = { ...query, history: kept.transcript, historyId: undefined };
  }

  const run = deps.runs.create(query.requestId);
  streamLog(res, run.log, [], keepRunning ? undefined : () => run.controller.abort(), query.transcriptAdded === true);
  run.log.append({ type: "run.started", requestId: run.requestId });
  try {
    await labelledRun(query.debugLabel, () => execute(run, query, history, selected.backend, deps));
  } finally {
    // Its last event reached nobody: its server is gone, and may come back after this runner.
    const unheard = keepRunning && !run.log.followed;
    deps.runs.finish(run);
    deps.activity();
    if (unheard) keepUnheard(run, deps);
  }
}

function keepUnheard(run: Run, deps: RunnerDeps): void {
  const replay = run.log.replay(0);
  // Without its first events, the run could not be replayed from the file either.
  if (!replay.ok) return;
  try {
    keepFinishedRun(deps.stateDir, run.requestId, replay.frames);
  } catch (error) {
    process.stderr.write(`harness-runner: cannot keep the end of run ${run.requestId} for its server: ${errorText(error)}\n`);
  }
}

async function execute(run: Run, query: RunnerQuery, history: RunHistory, backend: Backend, deps: RunnerDeps): Promise<void> {
  let finished = false;
  const changes = trackFileChanges(deps.checkpoints, (event) => run.log.append(event));
  const follows = backend.movesToBackground === true;
  const emit = (event: AgentEvent) => {
    if (finished) return;
    changes.emit(event);
    const unmoved = follows ? run.backgrounds.observe(event) : undefined;
    if (unmoved !== undefined) changes.emit(notice(unmoved));
  };
  // Approvals and controls' notices go the same way, behind a report of changed files still being made.
  run.routeEvents(emit);

  const ctx: BackendContext = {
    signal: run.controller.signal,
    emit,
    workspace: deps.workspace,
    stateDir: deps.stateDir,
    ...(query.interactive === true && { requestApproval: (request) => run.approvals.request(request) }),
    steering: run.steering,
    onConfigure: (listener) => run.configure.subscribe(listener),
    onStopAgent: (listener) => run.agentStops.subscribe(listener),
    onTodosSet: (listener) => run.todoSets.subscribe(listener),
    onBackground: (listener) => run.backgrounds.subscribe(listener),
    onKillShell: (listener) => run.shellKills.subscribe(listener),
  };
  let outcome: RunOutcome;
  try {
    const messageId = query.userMessageId;
    if (messageId !== undefined && backend.checkpointsOnChange) {
      if (await reserve(messageId, backend, deps, emit)) {
        let taken: Promise<void> | undefined;
        ctx.beforeChanges = async (toolUseId) => {
          const reported = changes.mayChange(toolUseId);
          await (taken ??= checkpoint(messageId, backend, deps, emit).then(changes.taken));
          await reported;
        };
      }
    } else if (messageId !== undefined) {
      changes.taken(await checkpoint(messageId, backend, deps, emit));
    }
    await startTurn();
    outcome = run.controller.signal.aborted ? { ok: false, message: abortedMessage(run.controller.signal) } : await withTelemetry(backend).run(query, ctx);
  } catch (err) {
    outcome = { ok: false, message: errorText(err) };
  }
  const unread = run.steering.take();
  for (const message of unread) {
    emit(notice(`This message arrived as the run was ending and did not reach the model: ${message}`));
  }
  const changedFiles = await changes.end();
  finished = true;
  run.routeEvents(undefined);
  try {
    const last = lastEvent(outcome, history, deps.transcripts, query.transcriptAdded === true, unread, changedFiles);
    run.log.append(last.whole, last.added);
  } catch (error) {
    // The stream still ends with a last event, saying what went wrong (a transcript that cannot be
    // encoded, say), rather than being cut.
    if (!run.log.ended) run.log.append({ type: "run.error", message: `the run's last event could not be sent: ${errorText(error)}` });
  }
}

/** Snapshots the workspace (before the run, or before its first change); a failure is told to the
 * user, and the run goes on. Returns the snapshot's tree, when one was taken. */
async function checkpoint(userMessageId: string, backend: Backend, deps: RunnerDeps, emit: (event: AgentEvent) => void): Promise<string | undefined> {
  const taken = await deps.checkpoints.beforeRun(userMessageId, backend.name).catch((error: unknown) => ({
    ok: false as const,
    message: errorText(error),
  }));
  if (!taken.ok) emit(notice(`${NOT_TAKEN}: ${taken.message}`));
  else if (taken.value.tree === undefined) emit(notice(`File checkpoints are off: ${GIT_NEEDED_MESSAGE}.`));
  else if (taken.value.leftOut) {
    const named = `${taken.value.leftOut.slice(0, 10).join(", ")}${taken.value.leftOut.length > 10 ? `, and ${taken.value.leftOut.length - 10} more` : ""}`;
    emit(notice(`The file checkpoint of this run leaves out files whose names git cannot store, so a rewind leaves them as they are: ${named}`));
  }
  return taken.ok ? taken.value.tree : undefined;
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
