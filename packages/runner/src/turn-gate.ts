// Spreads the synchronous work of many starts over event-loop turns.

/** Returns `wait()`: each caller resumes in an event-loop turn of its own, in arrival order, so
 * that I/O ready meanwhile (the events of runs already streaming) is served between them. Fifty
 * runs submitted at once would otherwise set up in one turn, holding every stream for as long. */
export function createTurnGate(): () => Promise<void> {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const next = () => {
    scheduled = false;
    waiting.shift()?.();
    if (waiting.length > 0) schedule();
  };
  const schedule = () => {
    scheduled = true;
    setImmediate(next);
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) schedule();
    });
}
