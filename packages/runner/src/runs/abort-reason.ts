// Why a run was aborted. A client's cancel ends it "cancelled"; the runner process stopping under
// it (SIGTERM from outside, its idle exit) says so instead, since nobody cancelled anything.

export class RunnerStopping extends Error {
  constructor() {
    super("the runner process was stopped during the run");
  }
}

/** The message a run aborted through `signal` ends with. */
export function abortedMessage(signal: AbortSignal): string {
  return signal.reason instanceof RunnerStopping ? signal.reason.message : "cancelled";
}
