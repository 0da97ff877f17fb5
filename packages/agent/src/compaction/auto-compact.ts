// Whether a run compacts by itself, and, when it does not, where the context is full.
import { envSwitch } from "../env/number.ts";
import type { EnvLike } from "./context-window.ts";

/** Whether automatic compaction is on: not when the settings' `autoCompactEnabled` is false, nor
 * when DISABLE_AUTO_COMPACT is 1, true, yes or on (Claude Code's switches). /compact works either way. */
export function autoCompactEnabled(setting: boolean | undefined, env: EnvLike): boolean {
  if (setting === false) return false;
  return !envSwitch(env, "DISABLE_AUTO_COMPACT");
}

/** What a run without automatic compaction keeps free of the window, as Claude Code's blocking
 * limit does: room for a reply (or for /compact's summary) and a margin; a quarter of a small window. */
const LIMIT_RESERVE_TOKENS = 23_000;

/** The tokens a request may hold, without automatic compaction, before the run stops to let the
 * user compact or clear. */
export function contextLimit(contextWindow: number): number {
  return contextWindow - Math.min(LIMIT_RESERVE_TOKENS, Math.floor(contextWindow / 4));
}
