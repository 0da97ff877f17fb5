// Whether this process runs from its startup bundle (startup.ts), for `harness doctor` to say. Kept
// on globalThis under a registered symbol, not in this module: the bundle holds a copy of this
// module of its own, which reads what the copy that loaded the bundle wrote. (A module cannot tell
// by its own URL: the bundle gives each module the URL of its source file, see build.ts.)

const KEY = Symbol.for("harness.startup.bundle");
type Marked = { [KEY]?: string };

/** Records the bundle the process starts from (undefined: its sources). */
export function markStartedFrom(bundle: string | undefined): void {
  if (bundle === undefined) delete (globalThis as Marked)[KEY];
  else (globalThis as Marked)[KEY] = bundle;
}

/** The startup bundle this process runs from, or undefined when it runs from its sources. */
export function startedFromBundle(): string | undefined {
  return (globalThis as Marked)[KEY];
}
