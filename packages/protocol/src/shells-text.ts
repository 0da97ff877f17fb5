// The background shells as /tasks (Claude Code's, also /bashes) shows them: the agent's report
// between runs, and a client's own listing of the state's `shells` while a run goes on.
import type { BackgroundShellInfo } from "./wire.ts";

/** The most shells one list holds (the runner forgets old finished ones long before). */
export const MAX_LISTED_SHELLS = 200;

/** The listing, with the hint for `/<name> kill <id>`; `now`: ms since the epoch. */
export function shellsListing(shells: readonly BackgroundShellInfo[], name = "tasks", now = Date.now()): string {
  if (shells.length === 0) return "No background shells: Bash starts one with run_in_background, or Ctrl+B moves a running command to the background.";
  const sorted = [...shells].sort((a, b) => a.startedAt - b.startedAt);
  const running = sorted.filter((shell) => shell.status === "running").length;
  const rows = sorted.map((shell) => [shell.id, shellStatusText(shell), shellRuntime(shell, now), oneLine(shell.command)]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  return [
    `Background shells: ${running} running of ${sorted.length}`,
    "",
    ...rows.map((row) => `  ${row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  ")}`),
    "",
    `/${name} kill <id> stops one; the agent reads their output with BashOutput.`,
  ].join("\n");
}

/** "running", "completed", "failed (exit 2)", "killed". */
export function shellStatusText(shell: BackgroundShellInfo): string {
  return shell.exitCode !== undefined && shell.status !== "killed" ? `${shell.status} (exit ${shell.exitCode})` : shell.status;
}

/** How long it ran, or has run so far: 45s, 3m 05s, 2h 01m. */
export function shellRuntime(shell: BackgroundShellInfo, now = Date.now()): string {
  const seconds = Math.max(0, Math.round(((shell.endedAt ?? now) - shell.startedAt) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

function oneLine(command: string): string {
  const line = command.replace(/\s*\n\s*/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
