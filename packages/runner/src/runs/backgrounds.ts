// Requests to move a running Bash call of the run to the background (background, Claude Code's
// Ctrl+B), handed to the backend's listeners, one per call from the moment its checks begin.
//
// A client shows a call as running as soon as the model announces it (tool.started), a moment (or,
// behind earlier calls, a while) before the call is checked and listens. A request for such a call
// is held run-wide until the call listens, so that the user's key is never lost; a call that then
// ends without having listened (refused, its input garbled, the run cancelled), or that was refused
// while its request waited in it, is told of in a notice: nothing went to the background.
//
// A call waiting for the user's approval is not running: a request without an id passes it by (as
// one naming it is refused), so that approving it later does not send it straight to the background.
import type { AgentEvent } from "@harness/protocol";

export type Backgrounds = {
  /** True when some call moved, or the request is held for calls announced and not yet started:
   * the one of `toolUseId`, or, without it, every one running and every one announced, except
   * those waiting for approval. */
  push(toolUseId: string | undefined): boolean;
  subscribe(listener: (toolUseId: string | undefined) => boolean): () => void;
  /** Follows the run's events (of a backend that moves calls): which Bash calls were announced, and
   * which ended; returns the notice to tell of a request that came to nothing, if one did. */
  observe(event: AgentEvent): string | undefined;
};

/** `awaitingApproval`: the calls that wait for the user's approval now. */
export function createBackgrounds(awaitingApproval: () => readonly string[] = () => []): Backgrounds {
  const listeners = new Set<(toolUseId: string | undefined) => boolean>();
  /** Bash calls announced and not yet ended. */
  const announced = new Set<string>();
  /** Calls of `announced` whose request waits for them to listen. */
  const held = new Set<string>();
  /** Calls whose request a listener took (it listened early: it is checked still, or moved). */
  const handed = new Set<string>();
  // Every listener hears it (no short cut): without an id, all running calls move.
  const offer = (toolUseId: string | undefined) => [...listeners].map((listener) => listener(toolUseId)).some(Boolean);
  function push(toolUseId: string | undefined): boolean {
    // Without an id: each Bash call announced, as if named (a backend whose events are not
    // followed announces none: every listener hears it, all running calls moving).
    if (toolUseId === undefined) {
      if (announced.size === 0) return offer(undefined);
      const waiting = new Set(awaitingApproval());
      return [...announced].filter((id) => !waiting.has(id)).map((id) => push(id)).some(Boolean);
    }
    if (offer(toolUseId)) {
      handed.add(toolUseId);
      return true;
    }
    // Not announced (or ended), or its request was taken already: nothing to wait for.
    if (!announced.has(toolUseId) || handed.has(toolUseId)) return false;
    held.add(toolUseId);
    return true;
  }
  return {
    push,
    subscribe(listener) {
      listeners.add(listener);
      // A new listener is a call that starts: the requests held for it go to it now.
      for (const id of held) {
        if (listener(id)) {
          held.delete(id);
          handed.add(id);
        }
      }
      return () => listeners.delete(listener);
    },
    observe(event) {
      if (event.type === "tool.started" && event.toolName === "Bash") announced.add(event.toolUseId);
      if (event.type !== "tool.completed" || !announced.delete(event.toolUseId)) return undefined;
      const id = event.toolUseId;
      if (held.delete(id)) return `The Bash call ${id} ended before its command started (${event.denied ? "it was refused" : "it never ran"}): nothing went to the background.`;
      if (handed.delete(id) && event.denied) return `The Bash call ${id} was refused before its command started: nothing went to the background.`;
      return undefined;
    },
  };
}
