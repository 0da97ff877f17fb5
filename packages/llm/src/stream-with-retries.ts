// The attempt loop every provider shares: open a streaming request, fold its raw events into
// ModelEvents, and retry failures that happen before anything was shown to the caller. Each retry
// is announced as an event; the SDKs' own retries are off.
import { setTimeout as sleep } from "node:timers/promises";
import type { Usage } from "@harness/protocol";
import { costUsd } from "./cost.ts";
import { type Failure, retryDelayMs } from "./retry-policy.ts";
import type { RetrySettings } from "./settings.ts";
import type { ModelEvent, ModelMessage, ModelRequest, StopReason } from "./types.ts";

export type AttemptState = {
  /** The reply arrived whole (Anthropic: message_stop; chat completions: a finish_reason). */
  complete: boolean;
  /** Set when the stream cannot go on (a tool's input is not valid JSON): ends it as an error. */
  fatal: string | undefined;
  usage: Usage;
};

/** One provider's wire format, as the attempt loop needs it. */
export type WireStream<Raw, State extends AttemptState> = {
  createState(): State;
  /** Sends attempt number `attempt` (1-based). Throws what the SDK throws. */
  open(attempt: number, signal: AbortSignal | undefined): Promise<AsyncIterable<Raw>>;
  /** Called once per raw event (the hot path): the events it produces, if any. */
  apply(state: State, raw: Raw): ModelEvent | ModelEvent[] | undefined;
  /** The assistant message so far (complete blocks only). */
  message(state: State): ModelMessage;
  /** The stop reason of a complete reply. */
  stopReason(state: State): StopReason;
  /** A failure before the response body arrived. */
  requestFailure(error: unknown): Failure;
  /** A failure while reading the body (retryable unless the error says otherwise). */
  streamFailure(error: unknown): Failure;
  /** What to call a body that ended before the reply was complete. */
  incompleteDescription: string;
};

export async function* streamWithRetries<Raw, State extends AttemptState>(
  wire: WireStream<Raw, State>,
  settings: RetrySettings,
  request: ModelRequest,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal } = request;
  const done = (state: State, stopReason: StopReason, errorMessage?: string): ModelEvent => {
    const usage = state.usage;
    usage.costUsd = costUsd(request.model, usage);
    const event: ModelEvent = { type: "done", stopReason, message: wire.message(state), usage };
    if (errorMessage !== undefined) event.errorMessage = errorMessage;
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
    try {
      stream = await wire.open(attempt, signal);
    } catch (error) {
      failure = wire.requestFailure(error);
    }
    if (stream) {
      try {
        // On abort the SDKs end this loop quietly; the signal is checked below.
        for await (const raw of stream) {
          const out = wire.apply(state, raw);
          if (out !== undefined) {
            if (Array.isArray(out)) {
              for (const event of out) yield event;
              emitted ||= out.length > 0;
            } else {
              emitted = true;
              yield out;
            }
          }
          if (state.fatal !== undefined) break;
        }
      } catch (error) {
        failure = wire.streamFailure(error);
      }
    }

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
      yield done(state, "error", `model stream broke after partial output: ${failure.description}`);
      return;
    }
    if (!failure.retryable) {
      yield done(state, "error", failure.description);
      return;
    }
    if (attempt > settings.maxRetries) {
      yield done(state, "error", `${failure.description} — gave up after ${attempt} attempts`);
      return;
    }
    const delayMs = retryDelayMs(attempt, settings.retryBaseMs, failure.retryAfterMs);
    yield { type: "retry", attempt, delayMs, reason: failure.description };
    await sleep(delayMs, undefined, { signal }).catch(() => undefined);
  }
}
