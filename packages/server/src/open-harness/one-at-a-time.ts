// Writes of the same place made one at a time within the server: a request that reads what is
// there, decides, and writes (a change, a removal) does so before the next of that place begins,
// so that a change racing a removal never brings back what was removed, and two changes at once
// both land. Runs writing the same files meanwhile are not held back: the writes stay atomic.
const queues = new Map<string, Promise<unknown>>();

/** `work` once the works of `key` before it are done (however they ended). */
export async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve();
  const mine = before.catch(() => {}).then(work);
  queues.set(key, mine);
  try {
    return await mine;
  } finally {
    if (queues.get(key) === mine) queues.delete(key);
  }
}
