// Whole-number option values, as `harness run` and `harness chat` take them.

/** The most turns a run may be given: the wire protocol's MAX_TURNS_LIMIT, kept here as a number
 * because `harness run` must not load the protocol's schemas to check a flag (run-modules.test.ts). */
export const MAX_TURNS = 10_000;

/** `text` as a whole number from `min` to `max`, or the line that says what `flag` takes. */
export function parseInteger(flag: string, text: string, min: number, max: number): number | string {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    return `${flag} must be ${min === 0 ? "a whole number" : "a positive whole number"}${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ""}, got "${text}"`;
  }
  return n;
}
