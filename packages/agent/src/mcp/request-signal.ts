/** Runs `request` with a signal that follows `outer` only until the request has settled. The MCP
 * SDK never removes the abort listener it puts on a request's signal: given a long-lived signal
 * (a run's, the start-up time limit's) it sends notifications/cancelled, when that signal fires,
 * for every request that was answered long before, initialize included, which the protocol says a
 * client must never cancel; and the listeners pile up on the run's signal, one per call. */
export async function withRequestSignal<T>(outer: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const follow = () => controller.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener("abort", follow, { once: true });
  try {
    return await request(controller.signal);
  } finally {
    outer.removeEventListener("abort", follow);
  }
}
