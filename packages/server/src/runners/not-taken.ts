// Requests a runner never took. A runner process may die between runs moments before the server
// hears of it: a query or rewind sent to it then finds nobody listening, or its connection is cut
// before any answer. No run started there, so the request goes once more to another runner (a new
// one, as when the death had been noticed). A request the runner answered at all, even in part, is
// never sent again: a query answered in part may have reached a model.
import type { RunnerEvent } from "@harness/protocol";
import type { RunnerTransport } from "@harness/runner/client";

/** How a connection ends that a runner never answered on, because its process is gone or going:
 * nobody listens (ECONNREFUSED, or ENOENT: its Unix socket was removed), or the connection was cut
 * before any answer (ECONNRESET, EPIPE). */
const NOT_TAKEN_CODES = new Set(["ECONNREFUSED", "ENOENT", "ECONNRESET", "EPIPE"]);

export type UnansweredRequests = {
  /** The transport, noting each request that failed before any answer came (not one byte of it). */
  transport: RunnerTransport;
  /** Whether `error` (or one of its causes) is such a failure: the runner never took the request.
   * `gone`: its process is known to have exited, which makes any such failure one, whatever its code. */
  notTaken(error: unknown, gone: boolean): boolean;
};

/** Tells the requests a runner never answered from those it answered, even in part: only the
 * former may be sent again to another runner (a query answered in part may have reached a model). */
export function unansweredRequests(inner: RunnerTransport): UnansweredRequests {
  const failed = new WeakSet<object>();
  return {
    transport: (url, request) =>
      inner(url, request).catch((error: unknown) => {
        // An aborted request was let go of, not refused.
        if (typeof error === "object" && error !== null && !request.signal?.aborted) failed.add(error);
        throw error;
      }),
    notTaken(error, gone) {
      for (let at = error, depth = 0; typeof at === "object" && at !== null && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
        if (!failed.has(at)) continue;
        return gone || NOT_TAKEN_CODES.has(String((at as { code?: unknown }).code));
      }
      return false;
    },
  };
}

/** A request no runner took, saying why: not a run that was cut short. */
export class NotTakenError extends Error {}

/** How a request that a runner did not take is sent again, to runners of type R. */
export type Resending<R> = {
  /** Whether `runner` never took the request that failed with `error`. */
  notTaken(runner: R, error: unknown): boolean;
  /** The runner to send it to again, or undefined for none (the first failure stands). */
  resend(runner: R, error: unknown): Promise<R | undefined>;
  /** The failure of a request that neither `first` took (`refused`) nor `second` (`error`). */
  twice(first: R, refused: unknown, second: R, error: unknown): Promise<Error>;
};

/** The events of `send(runner)`, or, when `runner` never took the query, those of sending it once
 * more where `how.resend` says: `moved` hears of that runner. */
export async function* takenOnce<R>(runner: R, send: (to: R) => AsyncIterable<RunnerEvent>, how: Resending<R>, moved: (to: R) => void): AsyncGenerator<RunnerEvent> {
  let received = false;
  let refused: unknown;
  try {
    for await (const event of send(runner)) {
      received = true;
      yield event;
    }
    return;
  } catch (error) {
    if (received || !how.notTaken(runner, error)) throw error;
    refused = error;
  }
  const next = await how.resend(runner, refused);
  if (next === undefined) throw refused;
  moved(next);
  try {
    for await (const event of send(next)) {
      received = true;
      yield event;
    }
  } catch (error) {
    if (received || !how.notTaken(next, error)) throw error;
    throw await how.twice(runner, refused, next, error);
  }
}

/** `call(runner)`, or, when `runner` never took it, `call` once more where `how.resend` says.
 * `call` throws only for a request not taken (it answers the rest as values). */
export async function calledOnce<R, T>(runner: R, call: (to: R) => Promise<T>, how: Resending<R>): Promise<T> {
  let refused: unknown;
  try {
    return await call(runner);
  } catch (error) {
    refused = error;
  }
  const next = await how.resend(runner, refused);
  if (next === undefined) throw refused;
  try {
    return await call(next);
  } catch (error) {
    throw await how.twice(runner, refused, next, error);
  }
}
