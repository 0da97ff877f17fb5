// The event feed's events the rest of the server tells of, as the feed has them: sessions made and
// deleted (the sessions API, and the registry for a session a WebSocket client makes by connecting
// to a new id), hooks that ran in a session's runs, and runs that ended in error.
import type { RegistryEvents } from "../registry-events.ts";
import type { SessionsApiOptions } from "../sessions/api.ts";
import type { EventStore } from "./event-store.ts";
import { EVENTS } from "./routes-hooks.ts";

/** What the registry and the sessions API are given to record their events in `store`. */
export function serverEvents(store: EventStore): { registry: RegistryEvents; onSessionEvent: NonNullable<SessionsApiOptions["onSessionEvent"]> } {
  return {
    registry: {
      created: (userId, sessionId) => store.record(userId, "session.created", { session_id: sessionId }),
      hookRan(userId, sessionId, ran) {
        // hook_id names this run of the hook: the hooks' own ids (their places in the settings
        // files) are not known to the run, which merges the settings with plugins' and skills' hooks.
        store.record(userId, "hook.triggered", {
          hook_id: crypto.randomUUID(),
          event: EVENTS[ran.hookEvent] ?? "custom",
          session_id: sessionId,
          data: {
            harness_event: ran.hookEvent,
            ...(ran.matcher !== undefined && { matcher: ran.matcher }),
            handler: ran.kind === "command" ? { type: "command", command: ran.command } : ran.kind === "http" ? { type: "webhook", url: ran.command } : { type: ran.kind, prompt: ran.command },
            outcome: ran.outcome,
            duration_ms: Math.round(ran.durationMs),
            ...(ran.exitCode !== undefined && { exit_code: ran.exitCode }),
          },
        });
      },
      runFailed: (userId, sessionId, failure) =>
        store.record(userId, "error", { code: "run_failed", message: failure.message, session_id: sessionId, ...(failure.runId !== undefined && { run_id: failure.runId }) }),
    },
    onSessionEvent(userId, sessionId, event) {
      if (event.type === "deleted") store.record(userId, "session.ended", { session_id: sessionId, reason: "deleted" });
      else store.record(userId, "session.created", { session_id: sessionId, ...(event.forkedFrom !== undefined && { forked_from: event.forkedFrom }) });
    },
  };
}
