// Which of the state's notices are new to a client that saw an earlier list of them.
import type { Notice } from "./wire.ts";

/** The notices of `now` that `before` lacks. The session keeps the latest few, in order: the
 * longest end of `before` that starts `now` is what both have. */
export function noticesAdded(before: readonly Notice[], now: readonly Notice[]): readonly Notice[] {
  const same = (a: Notice, b: Notice) => a.level === b.level && a.message === b.message;
  for (let k = Math.min(before.length, now.length); k > 0; k--) {
    const tail = before.length - k;
    if (now.slice(0, k).every((notice, i) => same(notice, before[tail + i]))) return now.slice(k);
  }
  return now;
}
