// What the session registry tells of its sessions (the Open Harness event feed records it): a
// session made as it opened, a hook that ran in a run, a run that failed.
import type { RunnerEvent } from "@harness/protocol";
import type { SessionStore } from "@harness/session";

export type RegistryEvents = {
  /** A session that was nowhere (neither stored nor in memory) was opened: a WebSocket client
   * connected to a new session id. */
  created?(userId: string, sessionId: string): void;
  /** A hook of one of the session's runs ran (the runner's hook.ran). */
  hookRan?(userId: string, sessionId: string, event: Extract<RunnerEvent, { type: "hook.ran" }>): void;
  /** A run of the session ended in error, saying why. */
  runFailed?(userId: string, sessionId: string, failure: { runId: string | undefined; message: string }): void;
};

/** Calls `tell`; what it throws is no session's failure. */
export function quietly(tell: () => void): void {
  try {
    tell();
  } catch {
    // A listener's failure changes nothing of the session.
  }
}

/** `store` as it is, but noting whether its load found nothing stored (`fresh()`): the session is
 * made as it opens. */
export function noticingFresh<S extends SessionStore>(store: S): { store: S; fresh(): boolean } {
  let fresh = false;
  return {
    store: {
      ...store,
      load() {
        const loaded = store.load();
        fresh = loaded === undefined;
        return loaded;
      },
    },
    fresh: () => fresh,
  };
}
