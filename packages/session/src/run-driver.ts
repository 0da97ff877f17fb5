// Driving a run: the query (or a re-attach after the host restarted), runner events translated into
// batches, control requests to the run in flight, and how a run ends.
import { isRunEnd, SpentBeforeSchema, type ConversationSpent, type DeltaOperation, type HarnessMessage, type HarnessState, type JSONValue, type RunEndEvent, type RunnerEvent, type RunnerQuery, type TranscriptMessage } from "@harness/protocol";
import type { ActiveRun, SessionCore, WaitingControl } from "./core.ts";
import { stopWatchingIdleShells, watchIdleShells } from "./idle-shells.ts";
import { configModeOps, runnerMode, wireMode } from "./permission-modes.ts";
import type { RunControl, RunOutcome } from "./ports.ts";
import { interruptionOps, lastInterruptedTurn, turnsOf, withSynthesizedTurn } from "./run-outcome.ts";
import type { RunRecord } from "./store.ts";
import { endRunOps, findMessage, translateEvent, type RunCursor } from "./translate.ts";
import { lateSpentOp, totalsOps, usageBeyond } from "./usage-count.ts";

/** A steer message sent to the run, and what to do when the run ends without delivering it
 * (`refusal`: why it does not start the next run either, SessionOptions.refusesRuns). */
type Steer = { text: string; undelivered(why: string, refusal?: string): void };

/** A run as this module drives it. `steers`: the user's steer messages not yet delivered to the
 * model; `chain`: the controls sent, in order; `resubmitted`: the steers the run ended without
 * delivering, sent on as the next prompt. */
type RunState = ActiveRun & { steers: Steer[]; chain: Promise<void>; resubmitted?: string[] };

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function newRun(cursor: RunCursor, fields: { prompt: string; userMessageId: string; requestId?: string; seenSeq: number }): RunState {
  return {
    controller: new AbortController(),
    cursor,
    prompt: fields.prompt,
    userMessageId: fields.userMessageId,
    requestId: fields.requestId,
    seenSeq: fields.seenSeq,
    committed: { seq: fields.seenSeq, cursor },
    waiting: [],
    answered: new Set(),
    steers: [],
    chain: Promise.resolve(),
  };
}

/** The query for a prompt, with the session's configuration as of now. `historyId`: the runner's id
 * for `transcript`, when it keeps it (the runner client then sends the id in its place). */
export function queryFor(state: HarnessState, transcript: TranscriptMessage[], prompt: string, userMessageId: string, historyId?: string): RunnerQuery {
  const body: RunnerQuery = { prompt, history: transcript, userMessageId, interactive: true };
  if (historyId !== undefined) body.historyId = historyId;
  const config = state.config;
  if (config?.model) body.model = config.model;
  if (config?.systemPrompt) body.systemPrompt = config.systemPrompt;
  if (config?.maxTurns) body.maxTurns = config.maxTurns;
  if (config?.effort) body.effort = config.effort;
  if (config?.permissionMode) body.permissionMode = runnerMode(config.permissionMode);
  if (state.sessionId) body.resumeSessionId = state.sessionId;
  const spent = spentToSend(state);
  if (spent) body.spentBefore = spent;
  return body;
}

/** The totals of /cost, for a runner that has not counted this conversation's runs itself (a new
 * process, after a restart or once the session's place was given back). Totals the runner would
 * refuse (a model service that reported tokens below zero) are left out rather than failing every
 * prompt: that runner counts from zero. */
function spentToSend(state: HarnessState): ConversationSpent | undefined {
  return state.spent && SpentBeforeSchema.safeParse(state.spent).success ? state.spent : undefined;
}

/** Adds `prompt` as a user message with a running assistant message after it, and starts its run.
 * The caller checks that no run is in flight. */
export function submitPrompt(core: SessionCore, prompt: string): void {
  const { state } = core;
  const at = state.messages.length;
  const user: HarnessMessage = { id: core.newId(), role: "user", content: prompt, status: "complete" };
  const assistant: HarnessMessage = { id: core.newId(), role: "assistant", content: "", status: "running" };
  const ops: DeltaOperation[] = [
    { type: "set", path: ["messages", String(at)], value: user as JSONValue },
    { type: "set", path: ["messages", String(at + 1)], value: assistant as JSONValue },
    { type: "set", path: ["status"], value: "running" },
  ];
  if (state.error) ops.push({ type: "set", path: ["error"], value: "" });
  if (state.rewindPreview) ops.push({ type: "set", path: ["rewindPreview"], value: null });
  // Shown once stored (startRun's urgent flush): a host killed before then leaves no client having
  // seen a prompt the next one does not have.
  core.holdSends();
  core.commit(ops);
  core.marks[user.id] = core.transcript.length;
  startRun(core, prompt, user.id, assistant.id);
  core.conversationChanged();
}

function startRun(core: SessionCore, prompt: string, userMessageId: string, assistantMessageId: string): void {
  const run = newRun({ assistantMessageId, afterTool: false }, { prompt, userMessageId, seenSeq: 0 });
  run.proposedId = core.newId();
  core.run = run;
  stopWatchingIdleShells(core);
  core.runChanged();
  core.options.counts?.runStarted();
  core.options.onRunStarted?.({ id: run.proposedId });
  const kept = core.runnerTranscript;
  const body = queryFor(core.state, core.transcript, prompt, userMessageId, kept?.transcript === core.transcript ? kept.id : undefined);
  body.requestId = run.proposedId;
  // The prompt and the run record reach the store before the runner hears of the run: a host that
  // dies in between leaves a run a later one re-attaches to, or finds never started; never one
  // that goes on with nobody watching.
  const stored = core.flush("urgent");
  // A run cancelled just before may still name the backend session this prompt continues (its
  // first one), and say what it spent after its cancel: the query waits for its last event, as the
  // runner would for the run to end, and goes on from what that says.
  const previous = windingDown.get(core);
  const ready = previous
    ? Promise.all([stored, previous]).then(() => {
        if (core.state.sessionId) body.resumeSessionId = core.state.sessionId;
        const spent = spentToSend(core.state);
        if (spent) body.spentBefore = spent;
      })
    : stored;
  const ended = whenEnded(run);
  void drive(core, run, () => core.options.runner.query(body, { signal: run.controller.signal, onLateEnd: lateEnd(core, run, () => body.resumeSessionId, ended) }), false, ready);
}

/** How long a prompt waits for the last event of the run cancelled before it. */
const WIND_DOWN_WAIT_MS = 5000;
/** Per session: settles once the last cancelled run's last event has come, or it is given up on. */
const windingDown = new WeakMap<SessionCore, Promise<void>>();
const runEnded = new WeakMap<ActiveRun, () => void>();
/** Per cancelled run: the conversation's totals when it was cancelled, its reported calls included. */
const spentAtCancel = new WeakMap<ActiveRun, ConversationSpent>();

/** Called when `run`'s last event has come after a cancel. */
function whenEnded(run: ActiveRun): () => void {
  return () => {
    runEnded.get(run)?.();
    runEnded.delete(run);
  };
}

/** From now until `run`'s last event comes (or WIND_DOWN_WAIT_MS), the next prompt waits. */
function windDown(core: SessionCore, run: ActiveRun): void {
  if (run.requestId === undefined) return; // the runner never started it
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, WIND_DOWN_WAIT_MS);
    // Node: nothing to keep a process alive for (there is no such method in browsers).
    (timer as { unref?: () => void }).unref?.();
    runEnded.set(run, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  windingDown.set(core, done);
  void done.then(() => {
    if (windingDown.get(core) === done) windingDown.delete(core);
  });
}

/** For a cancelled run's last event, which comes after the session moved on: the tokens the run
 * used until it stopped still count (in the usage, and in the conversation's totals that the next
 * query gives a runner that did not count them), and the backend session it started (or forked) is the one
 * the next prompt continues, unless another run has changed the session's since `resumed`. */
function lateEnd(core: SessionCore, run: ActiveRun, resumed: () => string | undefined, ended?: () => void): (event: RunEndEvent) => void {
  return (event) => {
    if (!core.ended) {
      // The calls it reported before the cancel are counted already.
      const counted = run.cursor.live?.counted;
      const ops: DeltaOperation[] = totalsOps(core.state, counted && event.usage ? { ...event, usage: usageBeyond(event.usage, counted) } : event);
      // Counted once: a late end read again adds nothing. With no run in flight, the later totals
      // held are a later run's end's, from the runner that counted this run whole.
      const before = spentAtCancel.get(run);
      spentAtCancel.delete(run);
      if (event.spent && before && core.run && !ops.some((op) => op.path[0] === "spent")) {
        const late = lateSpentOp(core.state, event.spent, before);
        if (late) ops.push(late);
      }
      if (event.sessionId && event.sessionId !== core.state.sessionId && core.state.sessionId === resumed()) {
        ops.push({ type: "set", path: ["sessionId"], value: event.sessionId });
      }
      if (ops.length > 0) core.commit(ops);
    }
    ended?.();
  };
}

/** The backend session as of now, for a run already under way. */
function resumedNow(core: SessionCore): () => string | undefined {
  const id = core.state.sessionId;
  return () => id;
}

/** Runs a previous host left and this one has not yet heard from: counted as started once their
 * runner answers, as interrupted at start when it never does (SessionCounts). */
const leftOver = new WeakSet<ActiveRun>();

/** Counts `run` as started if a previous host left it and it was not counted yet. */
function countLeftOver(core: SessionCore, run: ActiveRun): void {
  if (leftOver.delete(run)) core.options.counts?.runStarted();
}

/** Picks up the run the store says was in flight when the host stopped: its events after the last
 * one stored are translated as if nothing had happened. When it cannot be found, it is written
 * down as interrupted. */
export function reattach(core: SessionCore, record: RunRecord): void {
  const cursor: RunCursor = { assistantMessageId: record.assistantMessageId, afterTool: record.afterTool, ...(record.live && { live: record.live }) };
  const prompt = record.prompt ?? core.state.messages[findMessage(core.state, record.userMessageId)]?.content ?? "";
  const run = newRun(cursor, { prompt, userMessageId: record.userMessageId, requestId: record.requestId, seenSeq: record.lastEventSeq });
  core.run = run;
  stopWatchingIdleShells(core);
  leftOver.add(run);
  const requestId = record.requestId;
  if (!requestId) {
    interrupt(core);
    return;
  }
  void drive(core, run, () => core.options.runner.attach(requestId, run.seenSeq, { signal: run.controller.signal, onLateEnd: lateEnd(core, run, resumedNow(core), whenEnded(run)) }), true);
}

async function drive(
  core: SessionCore,
  run: RunState,
  open: () => AsyncIterable<RunnerEvent>,
  restored: boolean,
  ready?: Promise<void>,
): Promise<void> {
  if (ready) {
    await ready;
    // Cancelled (or the session closed) before the query went out: the runner never hears of it.
    if (core.run !== run) return;
  }
  let received = 0;
  let reattached = false;
  for (;;) {
    try {
      for await (const event of open()) {
        if (core.run !== run) return;
        // A re-attached stream starts after the last event applied; anything older is skipped.
        if (event.seq <= run.seenSeq) continue;
        received++;
        countLeftOver(core, run);
        if (event.type === "run.started") learnRequestId(core, run, event.requestId);
        if (isRunEnd(event)) return finish(core, run, event);
        const chosen = chosenModeOps(core.state, run, event);
        const { operations, cursor } = chosen ? { operations: chosen, cursor: run.cursor } : translateEvent(core.state, run.cursor, event, core.newId);
        run.cursor = cursor;
        if (operations.length) core.stage(operations);
        if (event.type === "hook.ran") core.options.onHookRan?.(event);
        if (event.type === "user.message" && event.steer && !event.agentId) {
          // A runner may deliver several waiting steers as one message.
          run.steers = run.steers.filter((steer) => !event.text.includes(steer.text));
        }
        core.applied(run, event);
      }
      if (core.run === run) fail(core, run, "The run failed: the runner's event stream ended before the run finished");
      return;
    } catch (error) {
      if (core.run !== run) return;
      if (restored && received === 0) {
        // Nothing came back from the runner: it, or the run, is gone.
        interrupt(core);
        return;
      }
      // The stream broke, but the run may go on in the runner: pick it up where it was, once.
      const requestId = run.requestId;
      if (!reattached && requestId) {
        reattached = true;
        open = () => core.options.runner.attach(requestId, run.seenSeq, { signal: run.controller.signal, onLateEnd: lateEnd(core, run, resumedNow(core), whenEnded(run)) });
        continue;
      }
      fail(core, run, `The run failed: ${describe(error)}`);
      return;
    }
  }
}

function learnRequestId(core: SessionCore, run: RunState, requestId: string): void {
  if (run.requestId === requestId) return;
  run.requestId = requestId;
  core.runChanged();
  const waiting = run.waiting;
  run.waiting = [];
  for (const w of waiting) send(core, run, requestId, w);
}

/** Sends `control` to the run in flight, in order with the controls sent before it; `onFailure`
 * hears when the runner refused or could not be reached. */
export function sendControl(core: SessionCore, run: ActiveRun, control: RunControl, onFailure: WaitingControl["onFailure"], onSuccess?: () => void): void {
  const waiting = { control, onFailure, ...(onSuccess && { onSuccess }) };
  if (run.requestId) send(core, run as RunState, run.requestId, waiting);
  else run.waiting.push(waiting);
}

function send(core: SessionCore, run: RunState, requestId: string, { control, onFailure, onSuccess }: WaitingControl): void {
  run.chain = run.chain.then(async () => {
    try {
      const answer = await core.options.runner.control(requestId, control);
      if (!answer.ok) onFailure(answer.message, answer.status);
      else onSuccess?.();
    } catch (error) {
      onFailure(describe(error));
    }
  });
}

/** Records a steer message sent to the run. One a completed run did not deliver starts the next
 * run, unless the host refuses runs (it is stopping); when it does not, or when the run is
 * cancelled or fails first, `undelivered` is told why (and the host's `refusal`). */
export function noteSteer(run: ActiveRun, message: string, undelivered: Steer["undelivered"]): void {
  (run as RunState).steers.push({ text: message, undelivered });
}

/** For a steer the runner refused because its run had finished: calls `lost` unless the run
 * resubmits it as the next prompt. A run still current here is ending (its last event is on the
 * way); whether it resubmits is known once it settles (only a completed run does). */
export function whenSteerLost(core: SessionCore, run: ActiveRun, message: string, lost: () => void): void {
  const decide = () => {
    if (!core.ended && (run as RunState).resubmitted?.includes(message) !== true) lost();
  };
  if (core.run !== run) return decide();
  // Settling aborts the run's controller, then the ending run resubmits: decide after both.
  run.controller.signal.addEventListener("abort", () => queueMicrotask(decide), { once: true });
}

/** Drops a steer the runner refused; false when the run's end already dropped it. */
export function forgetSteer(run: ActiveRun, message: string): boolean {
  const steers = (run as RunState).steers;
  const k = steers.findIndex((steer) => steer.text === message);
  if (k >= 0) steers.splice(k, 1);
  return k >= 0;
}

/** The run ended without reaching the model with its steers, and will not send them on. */
function dropSteers(run: RunState, why: string, refusal?: string): void {
  const steers = run.steers;
  run.steers = [];
  for (const steer of steers) steer.undelivered(why, refusal);
}

/** What the state makes of `event` when the session's last choice of mode decides it, instead of
 * the event alone; undefined when it does not. A mode the run changed to (an earlier choice taken,
 * plan mode left for the default) before taking the mode configured since, which may reach it too
 * late or not at all (the run ended first), is superseded: nothing. That choice holds for the next
 * runs. Once the run says it took it (or refused it), the run's own changes count again. */
function chosenModeOps(state: HarnessState, run: RunState, event: RunnerEvent): DeltaOperation[] | undefined {
  if (event.type !== "mode.changed" || event.agentId || run.modeSent === undefined) return undefined;
  const sent = run.modeSent;
  // A refusal of the mode last configured: the run stays where it was, and the state says so.
  const taken = event.refused ?? event.permissionMode;
  if (taken !== sent.mode) return [];
  run.modeSent = undefined;
  // Stayed in plan mode, which the configuration cannot name: it says what it did before the choice.
  if (event.refused && wireMode(event.permissionMode) === undefined) return configModeOps(state.config, sent.before);
  return undefined;
}

function finish(core: SessionCore, run: RunState, event: RunEndEvent): void {
  // Steer messages a completed run did not reach the model with are not lost: they go next, unless
  // the host starts no run now (it is stopping). Those, and a failed run's, are dropped, and their
  // senders told so before the state says the run ended.
  const completed = event.type === "run.completed";
  // The runner names the steers it did not pass on: those sent to this run before a restart, which
  // this session never heard of, go next as well (the run's end and the prompt are stored in one
  // write, so a host killed again sends them on once more only if it never stored this one).
  const ours = run.steers.map((steer) => steer.text);
  const theirs = completed ? (event.unreadSteers ?? []).filter((text) => !ours.includes(text)) : [];
  const refusal = completed && ours.length + theirs.length > 0 ? core.options.refusesRuns?.() : undefined;
  const next = completed && refusal === undefined ? [...run.steers.splice(0).map((steer) => steer.text), ...theirs] : [];
  if (!completed) dropSteers(run, "the run failed first");
  else if (refusal !== undefined) dropSteers(run, "the run ended before the model read it", refusal);
  const { operations } = translateEvent(core.state, run.cursor, event, core.newId);
  core.commit(operations);
  settle(core, run, completed ? "completed" : "error", "the run failed first", event.transcript, event.transcriptId);
  if (next.length) {
    run.resubmitted = next;
    submitPrompt(core, next.join("\n\n"));
  }
}

export function fail(core: SessionCore, run: ActiveRun, message: string): void {
  dropSteers(run as RunState, "the run failed first");
  const i = findMessage(core.state, run.cursor.assistantMessageId);
  if (i >= 0) core.commit(endRunOps(core.state, i, "error", { status: "error", error: message }));
  settle(core, run, "error", "the run failed first");
}

/** Cancels the run in flight: the state says so at once, and the runner is told to stop. */
export function cancel(core: SessionCore, run: ActiveRun): void {
  windDown(core, run);
  core.commitStaged();
  if (core.state.spent) spentAtCancel.set(run, core.state.spent);
  dropSteers(run as RunState, "the run was cancelled first");
  const i = findMessage(core.state, run.cursor.assistantMessageId);
  if (i >= 0) core.commit(endRunOps(core.state, i, "cancelled", { status: "idle", toolOutput: "cancelled" }));
  settle(core, run, "cancelled", "the run was cancelled first");
}

/** Writes down a run this process will not finish (restored with its runner gone, or closing). */
export function interrupt(core: SessionCore): void {
  const run = core.run;
  core.commitStaged();
  const turn = lastInterruptedTurn(core.state);
  core.commit(interruptionOps(core.state));
  if (run) {
    settle(core, run, "interrupted", "the run was interrupted first");
  } else {
    core.options.counts?.runInterruptedAtStart();
    if (turn) core.transcript = withSynthesizedTurn(core.transcript, turn.prompt, turn.reply);
    core.runChanged();
    core.conversationChanged();
  }
}

/** Why a settled run's controller is aborted: made once (a reasonless abort() makes a DOMException,
 * stack and all, every time). */
const RUN_SETTLED = new DOMException("the run is over", "AbortError");

/** Ends `run`: aborts its stream if still open (which cancels it in the runner), records the
 * transcript (with the runner's id for it, when it keeps it), stores the session, and tells the
 * senders of steers still undelivered that the run ended without them (`undelivered`: why). The
 * run's end drops them before it commits its last operations (cancel, fail, finish), so that a
 * sender hears of them before the state says the run ended: a client that leaves once the run has
 * ended (a piped chat) still hears. */
function settle(core: SessionCore, run: ActiveRun, outcome: RunOutcome, undelivered: string, transcript?: TranscriptMessage[], transcriptId?: string): void {
  core.run = undefined;
  // A run a previous host left that ends unheard from: interrupted at start when its runner is gone,
  // else (cancelled, failed) started and ended here, so that started − ended stays the runs going.
  if (leftOver.has(run) && outcome === "interrupted") {
    leftOver.delete(run);
    core.options.counts?.runInterruptedAtStart();
  } else {
    countLeftOver(core, run);
    core.options.counts?.runEnded(outcome);
  }
  run.controller.abort(RUN_SETTLED);
  if (transcript) {
    core.transcript = transcript;
    core.runnerTranscript = transcriptId === undefined ? undefined : { id: transcriptId, transcript };
  } else {
    const from = findMessage(core.state, run.userMessageId);
    core.transcript =
      from >= 0
        ? [...core.transcript, ...turnsOf(core.state.messages.slice(from))]
        : withSynthesizedTurn(core.transcript, run.prompt, lastReply(core, run));
  }
  core.runChanged();
  core.conversationChanged();
  core.options.onSettled?.(core.state, { id: run.requestId ?? run.proposedId });
  dropSteers(run as RunState, undelivered);
  // Between runs, a shell that ends has no run to report it (idle-shells.ts).
  watchIdleShells(core);
}

function lastReply(core: SessionCore, run: ActiveRun): string {
  const i = findMessage(core.state, run.cursor.assistantMessageId);
  return i < 0 ? "" : core.state.messages[i].content;
}
