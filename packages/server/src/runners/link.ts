// The RunnerProtocol over HTTP, for runs that outlive the server: queries are sent with
// `x-harness-keep-running: 1`, so closing the request no longer cancels the run — cancelling is an
// explicit POST /runs/:id/cancel, made when the caller aborts. A run whose stream broke, or whose
// server restarted, is re-attached to with GET /runs/:id/events and Last-Event-ID.
import { isRunEnd, type RewindResult, type RunEndEvent, type RunnerEvent, type RunnerQuery } from "@harness/protocol";
import { MISSING_ANTHROPIC_KEY } from "@harness/llm/model-prefix";
import { RunnerHttpError, type RunControl, type RunnerClient } from "@harness/runner/client";
import type { RunnerAnswer } from "@harness/session";

/** How long a cancelled run's stream is read on, waiting for the run's id so it can be cancelled; and,
 * once cancelled, for its last event. */
const CANCEL_WAIT_MS = 30_000;
/** How long a control or rewind request may take. */
const ANSWER_TIMEOUT_MS = 30_000;

/** `lastSeq`: the seq of the last event read. `onLateEnd`: hears the run's last event when the
 * caller aborted before it came. `userShell`: the runner's environment is the shell of the user
 * who reads its errors (a local chat), whose words they keep. */
type Run = { requestId?: string; lastSeq: number; onLateEnd?: (event: RunEndEvent) => void; userShell?: boolean };

/** The reason a stream is closed once its run is over: one made up front, since an abort() without
 * a reason makes a DOMException (and its stack) every time. */
const STREAM_DONE = new DOMException("the run's stream is no longer read", "AbortError");

function whenAborted(signal: AbortSignal): Promise<"aborted"> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
}

/** The server's words for a run's failure where the runner's are a terminal's: a runner without
 * a key has it from the server's environment, not from the shell of the user who reads the error. */
function serverWords(event: RunnerEvent): RunnerEvent {
  if (event.type !== "run.error" || !event.message.includes(MISSING_ANTHROPIC_KEY)) return event;
  return { ...event, message: event.message.replace(MISSING_ANTHROPIC_KEY, SERVER_MISSING_KEY) };
}

const SERVER_MISSING_KEY = "the server has no ANTHROPIC_API_KEY (nor ANTHROPIC_AUTH_TOKEN): set it where `harness serve` runs, and restart the server";

/** Yields the events `open` streams until the run ends. When `signal` aborts, the consumer gets its
 * reason at once and the run is cancelled in the background. Until the run's id is known, an abort
 * leaves the stream open, to be read on for the id; once it is known, an abort closes the stream
 * (no per-event race with the abort on the hot path). */
async function* relay(
  client: RunnerClient,
  run: Run,
  open: (signal: AbortSignal) => AsyncIterable<RunnerEvent>,
  signal: AbortSignal,
  onEnded?: () => void,
): AsyncGenerator<RunnerEvent> {
  if (signal.aborted) throw signal.reason;
  const local = new AbortController();
  const stop = () => local.abort(signal.reason);
  const stream = open(local.signal)[Symbol.asyncIterator]();
  let aborted: Promise<"aborted"> | undefined;
  let finished = false;
  let pending: Promise<IteratorResult<RunnerEvent>> | undefined;
  if (run.requestId) signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      let result: IteratorResult<RunnerEvent>;
      if (run.requestId) result = await stream.next();
      else {
        pending = stream.next();
        const first = await Promise.race([pending, (aborted ??= whenAborted(signal))]);
        if (first === "aborted") throw signal.reason;
        pending = undefined;
        result = first;
      }
      if (result.done) return;
      const event = run.userShell ? result.value : serverWords(result.value);
      run.lastSeq = event.seq;
      if (event.type === "run.started" && !run.requestId) {
        run.requestId = event.requestId;
        signal.addEventListener("abort", stop, { once: true });
      }
      // Set before yielding: a consumer that stops reading after the last event must not cancel.
      if (isRunEnd(event)) {
        finished = true;
        onEnded?.();
      }
      yield event;
      if (finished) return;
      if (signal.aborted) throw signal.reason;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener("abort", stop);
    if (finished || !signal.aborted) local.abort(STREAM_DONE);
    else void cancelInBackground(client, run, stream, pending, stop);
  }
}

/** Cancels an aborted run: at once when its id is known, else once run.started arrives. Then, for
 * a caller that wants it, reads the run's last event (what the run used until it stopped). */
async function cancelInBackground(
  client: RunnerClient,
  run: Run,
  stream: AsyncIterator<RunnerEvent>,
  pending: Promise<IteratorResult<RunnerEvent>> | undefined,
  stop: () => void,
): Promise<void> {
  pending?.catch(() => {});
  const deadline = setTimeout(stop, CANCEL_WAIT_MS);
  try {
    while (!run.requestId) {
      const result = await (pending ?? stream.next());
      pending = undefined;
      if (result.done) break;
      run.lastSeq = result.value.seq;
      if (result.value.type === "run.started") run.requestId = result.value.requestId;
    }
    stop();
    if (!run.requestId) return;
    await client.control(run.requestId, { type: "cancel" }, AbortSignal.timeout(ANSWER_TIMEOUT_MS));
    if (!run.onLateEnd) return;
    for await (const event of client.events(run.requestId, { afterSeq: run.lastSeq, signal: AbortSignal.timeout(CANCEL_WAIT_MS) })) {
      if (isRunEnd(event)) run.onLateEnd(event);
    }
  } catch {
    // The stream or the runner went away: nothing is left to cancel.
  } finally {
    clearTimeout(deadline);
    stop();
  }
}

/** POST /query with keep-running. Aborting `signal` cancels the run, even before it answered.
 * `onEnded` hears that the run's last event (run.completed or run.error) arrived; `onLateEnd` gets
 * that event when it arrives after the abort. */
export function queryRun(
  client: RunnerClient,
  body: RunnerQuery,
  opts: { signal: AbortSignal; onEnded?: () => void; onLateEnd?: (event: RunEndEvent) => void; userShell?: boolean },
): AsyncGenerator<RunnerEvent> {
  const run: Run = { lastSeq: 0, ...(opts.onLateEnd && { onLateEnd: opts.onLateEnd }), ...(opts.userShell && { userShell: true }) };
  return relay(client, run, (signal) => client.query(body, { signal, keepRunning: true }), opts.signal, opts.onEnded);
}

/** GET /runs/:id/events after `afterSeq`. Throws RunnerHttpError 404 when the runner does not know
 * the run, and an Error when it cannot be reached. Aborting `signal` cancels the run; `onLateEnd`
 * then gets its last event, as with queryRun. */
export function attachRun(
  client: RunnerClient,
  requestId: string,
  afterSeq: number,
  opts: { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void; userShell?: boolean },
): AsyncGenerator<RunnerEvent> {
  const run: Run = { requestId, lastSeq: afterSeq, ...(opts.onLateEnd && { onLateEnd: opts.onLateEnd }), ...(opts.userShell && { userShell: true }) };
  return relay(client, run, (signal) => client.events(requestId, { afterSeq, signal }), opts.signal);
}

/** The runner's answer to `call` as a value: its refusal with the HTTP status, or why it gave none.
 * An error `rethrow` picks is thrown instead. */
async function answer<T>(call: (signal: AbortSignal) => Promise<T>, rethrow?: (error: unknown) => boolean): Promise<RunnerAnswer<T>> {
  const signal = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
  try {
    return { ok: true, value: await call(signal) };
  } catch (error) {
    if (rethrow?.(error)) throw error;
    if (error instanceof RunnerHttpError) return { ok: false, status: error.status, message: error.message };
    if (signal.aborted) return { ok: false, message: `the runner did not answer within ${ANSWER_TIMEOUT_MS / 1000} s` };
    return { ok: false, message: (error as Error).message };
  }
}

/** POST /runs/:id/{approve,deny,steer,cancel,configure,stop-agent,background,kill-shell,todos}. */
export function postControl(client: RunnerClient, requestId: string, control: RunControl): Promise<RunnerAnswer<undefined>> {
  return answer((signal) => client.control(requestId, control, signal).then(() => undefined));
}

/** POST /rewind. An error `rethrow` picks (see UnansweredRequests) is thrown rather than answered. */
export function postRewind(
  client: RunnerClient,
  request: { userMessageId: string; dryRun: boolean },
  rethrow?: (error: unknown) => boolean,
): Promise<RunnerAnswer<RewindResult>> {
  return answer((signal) => client.rewind(request, signal), rethrow);
}
