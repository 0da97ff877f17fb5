// Listeners of the client's events. A listener that throws must not leave the client half way
// through a change (a reconnect not scheduled, a connect() never settled, commands never sent): its
// error is reported once the client's own work is done, as an uncaught error would be (the
// browser's reportError, or a throw from a microtask).

type Listener = (...args: never[]) => void;

export class Listeners<Events extends { [K in keyof Events]: Listener }> {
  readonly #sets = new Map<keyof Events, Set<Listener>>();

  on<K extends keyof Events>(event: K, listener: Events[K]): () => void {
    let set = this.#sets.get(event);
    if (!set) this.#sets.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<K extends keyof Events>(event: K, ...args: Parameters<Events[K]>): void {
    const set = this.#sets.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (...a: Parameters<Events[K]>) => void)(...args);
      } catch (error) {
        report(error);
      }
    }
  }
}

function report(error: unknown): void {
  const reportError = (globalThis as { reportError?: (error: unknown) => void }).reportError;
  if (typeof reportError === "function") reportError(error);
  else
    queueMicrotask(() => {
      throw error;
    });
}
