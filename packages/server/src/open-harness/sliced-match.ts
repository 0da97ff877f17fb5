// Matching a user's pattern (files.search's regular expression or glob) over many strings without
// holding up the server: in a vm context, so that a pattern that backtracks for ever is stopped
// wherever it is (after STUCK_MS on one string), and in slices of about SLICE_MS, between which the
// server serves its other requests and every session's stream.
import { setImmediate as nextTurn } from "node:timers/promises";
import { Script, createContext } from "node:vm";

/** How long one slice of matching runs before the server's other work goes on. */
export const SLICE_MS = 20;
/** How long matching one string may take: past that the pattern is taken to backtrack for ever. */
export const STUCK_MS = 250;

/** The indices of the `items` the pattern matches (at most `max`, in order), or "timeout" when the
 * deadline (ms since the epoch) passed or one item took STUCK_MS. */
export type SlicedMatcher = (items: readonly string[], deadline: number, max?: number) => Promise<number[] | "timeout">;

/** A matcher whose test of one item is the function expression `test`, made in a context holding
 * `globals` (strings and functions only: what it needs, nothing of the server). */
export function slicedMatcher(globals: Record<string, unknown>, test: string): SlicedMatcher {
  const context = createContext({ ...globals, items: [] as readonly string[], from: 0, max: 0, sliceMs: SLICE_MS });
  const script = new Script(`(() => {
    const test = ${test};
    const end = Date.now() + sliceMs;
    const hits = [];
    let i = from;
    while (i < items.length && hits.length < max) {
      if (test(items[i])) hits.push(i);
      i++;
      if ((i & 15) === 0 && Date.now() > end) break;
    }
    return i + ";" + hits.join(",");
  })()`);
  return async (items, deadline, max = Number.MAX_SAFE_INTEGER) => {
    const hits: number[] = [];
    try {
      for (let from = 0; from < items.length && hits.length < max; ) {
        const left = deadline - Date.now();
        if (left <= 0) return "timeout";
        Object.assign(context, { items, from, max: max - hits.length });
        let answer: string;
        try {
          answer = script.runInContext(context, { timeout: Math.max(1, Math.ceil(Math.min(left, STUCK_MS))) }) as string;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
          throw error;
        }
        const [next, found] = answer.split(";");
        if (found) for (const n of found.split(",")) hits.push(Number(n));
        from = Number(next);
        if (from < items.length && hits.length < max) await nextTurn();
      }
      return hits;
    } finally {
      context.items = [];
    }
  };
}
