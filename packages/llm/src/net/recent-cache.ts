// A cache of the most recently used few: for values made from settings that may keep changing (a
// CA file rewritten by a tool, say), which a plain Map would keep every version of for good.

export class RecentCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #limit: number;
  readonly #onDrop: (value: V) => void;

  /** Keeps at most `limit` values; `onDrop` is handed each one let go of, to release what it holds. */
  constructor(limit: number, onDrop: (value: V) => void = () => {}) {
    this.#limit = limit;
    this.#onDrop = onDrop;
  }

  /** The value under `key`, now the most recently used. */
  get(key: K): V | undefined {
    const found = this.#entries.get(key);
    if (found === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, found);
    return found;
  }

  /** Keeps `value` under `key`, dropping the least recently used beyond the limit. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    for (const [oldest, dropped] of this.#entries) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(oldest);
      this.#onDrop(dropped);
    }
  }
}
