// The attempt loop every provider shares: open a streaming request, fold its raw events into
// ModelEvents, and retry failures that happen before anything was shown to the caller. Each retry
// is announced as an event; the SDKs' own retries are off.
import { setTimeout as sleep } from "node:timers/promises";
import type { Usage } from "@harness/protocol";
import { pricedCall } from "../cost.ts";
import { debugLog, debugOn } from "../log/debug-log.ts";
import { type Failure, formatDuration, MAX_RETRY_DELAY_MS, NotAnEventStream, retryDelayMs } from "./policy.ts";
import type { RetrySettings } from "../settings.ts";
import type { ModelEvent, ModelMessage, ModelRequest, StopReason } from "../types.ts";

export type AttemptState = {
  /** The reply arrived whole (Anthropic: message_stop; chat completions: a finish_reason). */
  complete: boolean;
  /** Set when the stream cannot go on (chat completions: a tool call without a name): ends it as an
   * error. */
  fatal?: string;
  usage: Usage;
  /** Why the model declined to answer, when the reply said (stop reason refusal). */
  refusal?: string;
};

/** One provider's wire format, as the attempt loop needs it. */
export type WireStream<Raw, State extends AttemptState> = {
  createState(): State;
  /** Sends attempt number `attempt` (1-based). Throws what the SDK throws. `onActivity` is called
   * whenever bytes of the answer arrive, keep-alives included (Anthropic's pings, a gateway's SSE
   * comments), which its events leave out: a model that sends only those while it prepares a long
   * tool input is working, not silent. */
  open(attempt: number, signal: AbortSignal | undefined, onActivity: () => void): Promise<AsyncIterable<Raw>>;
  /** Called once per raw event (the hot path): the events it produces, if any. */
  apply(state: State, raw: Raw): ModelEvent | ModelEvent[] | undefined;
  /** The assistant message so far (complete blocks only). */
  message(state: State): ModelMessage;
  /** The stop reason of a complete reply. */
  stopReason(state: State): StopReason;
  /** A failure before the response body arrived (other than NotAnEventStream, which open throws
   * through expectEventStream and the loop describes itself). */
  requestFailure(error: unknown): Failure;
  /** A failure while reading the body (retryable unless the error says otherwise). */
  streamFailure(error: unknown): Failure;
  /** The id the server gave the last request (Anthropic's request-id header), for the debug log. */
  requestId?(): string | undefined;
  /** What to call a body that ended before the reply was complete. */
  incompleteDescription: string;
  /** Warnings the last `open` gave rise to that were not said before (each is said once). */
  takeWarnings?(): string[];
  /** The body ended cleanly before the reply was complete: a wire whose servers may leave out the
   * end marker completes the reply here (returning the events that makes), or leaves it. */
  endedEarly?(state: State): ModelEvent[] | undefined;
  /** The server runs on this machine: its calls cost nothing, whatever the model. */
  local?: boolean;
};

/** What the caller shows of a reply: text and finished tool calls. Thinking and a tool call's input
 * as it streams are not shown, so a stream that breaks after only those can be tried again. */
function shown(event: ModelEvent): boolean {
  return event.type === "text-delta" || event.type === "tool-call-end";
}

export async function* streamWithRetries<Raw, State extends AttemptState>(
  wire: WireStream<Raw, State>,
  settings: RetrySettings,
  request: ModelRequest,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal } = request;
  // A stream that sends nothing for this long is given up on, and retried when nothing of it was
  // shown: a connection can stay open with nobody writing to it.
  const idleMs = settings.streamIdleMs;
  // What the attempts given up on used (their tokens are billed too): told apart from the last
  // attempt's usage, which measures the request (the context's size) as well.
  let spent: Usage | undefined;
  const done = (state: State, stopReason: StopReason, errorMessage?: string, failure?: Failure): ModelEvent => {
    const usage = pricedCall(request.model, state.usage, wire.local);
    const event: ModelEvent = { type: "done", stopReason, message: wire.message(state), usage };
    if (spent) event.abandonedUsage = pricedCall(request.model, spent, wire.local);
    if (errorMessage !== undefined) event.errorMessage = errorMessage;
    if (failure?.kind !== undefined) event.error = failure.code === undefined ? { kind: failure.kind } : { kind: failure.kind, code: failure.code };
    if (state.refusal !== undefined) event.refusal = state.refusal;
    return event;
  };
  for (let attempt = 1; ; attempt++) {
    const state = wire.createState();
    if (signal?.aborted) {
      yield done(state, "aborted");
      return;
    }
    let emitted = false;
    let failure: Failure | undefined;
    let stream: AsyncIterable<Raw> | undefined;
    // Aborts this attempt alone when its stream falls silent (streamIdleMs).
    const attemptAbort = new AbortController();
    const attemptSignal = signal ? AbortSignal.any([signal, attemptAbort.signal]) : attemptAbort.signal;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    let stalled = false;
    // One timer per attempt, not one per event (events come by the thousand): each event only
    // notes its time, and the timer, when it fires early, waits out the rest.
    let lastEvent = performance.now();
    const check = () => {
      const quiet = performance.now() - lastEvent;
      if (quiet < idleMs) {
        idleTimer = setTimeout(check, idleMs - quiet);
        return;
      }
      stalled = true;
      attemptAbort.abort(new Error(`no event for ${formatDuration(idleMs)}`));
    };
    const watch = () => {
      lastEvent = performance.now();
      idleTimer ??= setTimeout(check, idleMs);
    };
    // The answer's headers are waited for as long as any later silence.
    watch();
    const openedAt = performance.now();
    if (debugOn("api")) debugLog("api", `request model=${request.model} attempt=${attempt}`);
    try {
      stream = await wire.open(attempt, attemptSignal, watch);
    } catch (error) {
      // A body that is not an event stream (expectEventStream, which every wire's open calls) is
      // described already; the same server answers the same way again.
      failure = error instanceof NotAnEventStream ? { description: error.message, retryable: false } : wire.requestFailure(error);
    }
    // Said with the reply's first event, from inside the loop: a caller that stops reading at a
    // warning then closes the stream as at any other event.
    const warnings = wire.takeWarnings?.() ?? [];
    if (stream) {
      watch();
      try {
        // On abort the SDKs end this loop quietly; the signal is checked below.
        for await (const raw of stream) {
          if (warnings.length > 0) for (const message of warnings.splice(0)) yield { type: "warning", message };
          watch();
          const out = wire.apply(state, raw);
          if (out !== undefined) {
            if (Array.isArray(out)) {
              for (const event of out) {
                emitted ||= shown(event);
                yield event;
              }
            } else {
              emitted ||= shown(out);
              yield out;
            }
          }
          if (state.fatal !== undefined) break;
        }
        for (const message of warnings.splice(0)) yield { type: "warning", message };
        if (!state.complete && state.fatal === undefined && !attemptSignal.aborted && wire.endedEarly) {
          for (const event of wire.endedEarly(state) ?? []) {
            emitted ||= shown(event);
            yield event;
          }
        }
      } catch (error) {
        failure = wire.streamFailure(error);
      } finally {
        // Also when the caller stops reading at one of the yields above: the timer must not keep the
        // process (and this attempt's state) alive for the rest of its time.
        clearTimeout(idleTimer);
      }
    }
    clearTimeout(idleTimer);
    for (const message of warnings) yield { type: "warning", message };
    if (stalled && !signal?.aborted && !state.complete) {
      failure = { description: `the model stream stalled: no event for ${formatDuration(idleMs)}`, retryable: true };
    }
    if (debugOn("api")) debugLog("api", `response model=${request.model} attempt=${attempt} ${attemptOutcome(wire, state, signal, failure)} after ${Math.round(performance.now() - openedAt)} ms${requestIdOf(wire)}`);

    if (state.fatal !== undefined) {
      yield done(state, "error", state.fatal);
      return;
    }
    // A reply that arrived whole stands even if the connection broke after it.
    if (state.complete) {
      yield done(state, wire.stopReason(state));
      return;
    }
    if (signal?.aborted) {
      yield done(state, "aborted");
      return;
    }
    failure ??= { description: wire.incompleteDescription, retryable: true };
    if (emitted) {
      yield done(state, "error", `model stream broke after partial output: ${failure.description}`, failure);
      return;
    }
    if (!failure.retryable) {
      yield done(state, "error", failure.description, failure);
      return;
    }
    // A wait longer than a retry would make (a quota for the day) is not waited out in a run.
    if (failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_DELAY_MS) {
      yield done(state, "error", `${failure.description} — the server asks to wait ${Math.ceil(failure.retryAfterMs / 60_000)} min before trying again`, failure);
      return;
    }
    if (attempt > settings.maxRetries) {
      yield done(state, "error", attempt === 1 ? failure.description : `${failure.description} — gave up after ${attempt} attempts`, failure);
      return;
    }
    spent = spent ? sumUsage(spent, state.usage) : { ...state.usage };
    const delayMs = retryDelayMs(attempt, settings.retryBaseMs, failure.retryAfterMs);
    if (debugOn("api")) debugLog("api", `retry attempt=${attempt + 1} in ${delayMs} ms`);
    yield { type: "retry", attempt, delayMs, reason: failure.description, maxAttempts: settings.maxRetries + 1, ...(failure.code !== undefined && { code: failure.code }) };
    await sleep(delayMs, undefined, { signal }).catch(() => undefined);
  }
}

/** How an attempt ended, for the debug log: never the request's body or key. */
function attemptOutcome<State extends AttemptState>(wire: WireStream<unknown, State>, state: State, signal: AbortSignal | undefined, failure: Failure | undefined): string {
  if (state.fatal !== undefined) return `failed ${state.fatal}`;
  if (state.complete) return `ok stop=${wire.stopReason(state)}`;
  if (signal?.aborted) return "aborted";
  return `failed ${failure?.description ?? wire.incompleteDescription}`;
}

function requestIdOf<State extends AttemptState>(wire: WireStream<unknown, State>): string {
  const id = wire.requestId?.();
  return id === undefined ? "" : ` request-id=${id}`;
}

function sumUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0),
    cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0),
    ...((a.unreportedCalls || b.unreportedCalls) && { unreportedCalls: (a.unreportedCalls ?? 0) + (b.unreportedCalls ?? 0) }),
  };
}
