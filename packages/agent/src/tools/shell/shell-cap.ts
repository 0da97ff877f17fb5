// How many background shells one conversation may have running at once: a model that starts one at
// every step (or a user who moves call after call to the background) would otherwise fill the
// machine with processes nobody reads. HARNESS_MAX_BACKGROUND_SHELLS sets it (default 32).
import type { BackgroundShell } from "./background-shells.ts";

export const MAX_SHELLS_ENV = "HARNESS_MAX_BACKGROUND_SHELLS";
export const DEFAULT_MAX_RUNNING_SHELLS = 32;

type Env = Readonly<Record<string, string | undefined>>;

/** HARNESS_MAX_BACKGROUND_SHELLS: a whole number, at least 1; unset or blank: the default. */
export function runningShellsLimit(env: Env): { ok: true; limit: number } | { ok: false; error: string } {
  const text = env[MAX_SHELLS_ENV]?.trim();
  if (!text) return { ok: true, limit: DEFAULT_MAX_RUNNING_SHELLS };
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) return { ok: false, error: `${MAX_SHELLS_ENV} must be a whole number of shells, at least 1, got ${JSON.stringify(env[MAX_SHELLS_ENV])}` };
  return { ok: true, limit: Number(text) };
}

/** Why one more background shell may not start in `shells` now (the limit reached, or set wrong),
 * in words the model and the user can act on; undefined when it may. */
export function shellCapProblem(shells: ReadonlyMap<string, BackgroundShell>, env: Env): string | undefined {
  const limit = runningShellsLimit(env);
  if (!limit.ok) return `${limit.error}.`;
  const running = [...shells.values()].filter((shell) => shell.status === "running");
  if (running.length < limit.limit) return undefined;
  const ids = running.slice(0, 10).map((shell) => shell.id).join(", ");
  const more = running.length > 10 ? ` and ${running.length - 10} more` : "";
  const count = running.length === 1 ? "1 background shell is" : `${running.length} background shells are`;
  return `${count} running already, the most one conversation may run at once (${MAX_SHELLS_ENV}=${limit.limit}). Stop one that is no longer needed with KillShell (running: ${ids}${more}) first.`;
}
