// Work done one piece after another, in the order it was given, where a piece may wait on I/O: a
// stream of events with reports among them, each report read from elsewhere, the events after it
// waiting their turn. A caller does a piece at once while nothing waits (`pending()` is undefined),
// so the common case (nothing to report) costs neither a promise nor a closure.

export type InOrder = {
  /** Queues `work`, which may wait, after what waits. */
  later(work: () => void | Promise<void>): void;
  /** Settles once what waits now is done; undefined when nothing waits. */
  pending(): Promise<void> | undefined;
};

/** `onError`: told of a piece that failed; the pieces after it still go. */
export function inOrder(onError: (error: unknown) => void = () => {}): InOrder {
  let queue: Promise<void> | undefined;
  let waiting = 0;
  function later(work: () => void | Promise<void>): void {
    waiting++;
    queue = (queue ?? Promise.resolve())
      .then(work)
      .catch(onError)
      .finally(() => {
        if (--waiting === 0) queue = undefined;
      });
  }
  return {
    later,
    pending: () => queue,
  };
}
