// A backgroundable call (Tool.backgroundable) listens for the user's request to move it to the
// background from its start, not only once its tool listens: a request that comes while the call
// is still checked (its hooks, its permission, the run's checkpoint) is kept and handed to the tool
// as it subscribes, so that Ctrl+B pressed as soon as the call shows is not lost.
import type { ToolContext } from "../types.ts";

type Subscribe = NonNullable<ToolContext["onBackground"]>;

/** Subscribes at once to `subscribe` (the call's ToolContext.onBackground); `onBackground` is what
 * the tool is given in its place; `stop` ends the listening once the call has answered. */
export function backgroundLatch(subscribe: Subscribe): { onBackground: Subscribe; stop(): void } {
  let requested = false;
  let stopped = false;
  /** The tool has listened: once it stops, its call has answered and nothing moves. */
  let listened = false;
  let tool: (() => boolean) | undefined;
  const unsubscribe = subscribe(() => {
    if (stopped) return false;
    if (tool) return tool();
    if (listened) return false;
    // Said to have moved: the tool moves as soon as it listens.
    requested = true;
    return true;
  });
  return {
    onBackground(listener) {
      tool = listener;
      listened = true;
      if (requested) {
        requested = false;
        // Later, not within the tool's own subscribe call.
        queueMicrotask(() => tool === listener && listener());
      }
      return () => {
        if (tool === listener) tool = undefined;
      };
    },
    stop() {
      stopped = true;
      tool = undefined;
      unsubscribe();
    },
  };
}
