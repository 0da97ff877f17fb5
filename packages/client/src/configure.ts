// Telling when the settings a configure sent hold in the session's state, or were refused: what the
// client's configure() waits for. A setting sent again as it is changes nothing on the server, so
// the settings already held count as taken at once.
import type { HarnessConfig } from "@harness/protocol";
import type { Watch } from "./watch.ts";

/** What configure() resolves with: the session's settings once they hold, or why they do not. It
 * never rejects, so that a configure() left unread cannot end a program. */
export type ConfigureResult = { ok: true; config: HarnessConfig } | { ok: false; error: string; code?: string };

export function watchConfigure(config: HarnessConfig): Watch<ConfigureResult> {
  const holds = (held: HarnessConfig | undefined) =>
    Object.entries(config).every(([key, value]) => value === undefined || held?.[key as keyof HarnessConfig] === value);
  return {
    state: (state) => (holds(state.config) ? { value: { ok: true, config: { ...state.config } } } : undefined),
    // The server's refusals of a configure start with its name; other commands' errors are theirs.
    error: (error) => (error.message.startsWith("configure") ? { value: { ok: false, error: error.message, ...(error.code && { code: error.code }) } } : undefined),
    closed: (why) => ({ value: { ok: false, error: why } }),
  };
}
