// Whether telemetry is on: the one test every process makes, kept apart so that it loads nothing else.

export const TRUE = new Set(["1", "true", "yes", "on"]);

/** Whether CLAUDE_CODE_ENABLE_TELEMETRY turns telemetry on (as Claude Code reads it). */
export function telemetryEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  return TRUE.has((env.CLAUDE_CODE_ENABLE_TELEMETRY ?? "").trim().toLowerCase());
}
