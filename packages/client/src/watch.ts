// What the client's awaiting calls (waitFor, run, configure) make of what happens after they are
// called. Each is a set of functions from an event to an outcome, undefined while it is still open;
// the client settles the call with the first outcome.
import type { HarnessState } from "@harness/protocol";
import type { ServerError } from "./types.ts";

export type Outcome<T> = { value: T } | { error: Error };

export type Watch<T> = {
  state(state: HarnessState): Outcome<T> | undefined;
  error?(error: ServerError): Outcome<T> | undefined;
  /** The client closed for good, or switched session: `why` says which. */
  closed(why: string): Outcome<T>;
  /** Above 0: `timedOut` settles the call after this long. */
  timeoutMs?: number;
  timedOut?(): Outcome<T>;
};
