// /tasks (Claude Code's, which /bashes also names): the conversation's background shells, those
// run_in_background started and those the user moved to the background, and `kill <id>` to stop one.
import { killShell, type BackgroundShell } from "../../tools/shell/background-shells.ts";
import type { ToolState } from "../../tools/state.ts";

/** The report, or what `kill <id>` did. `name`: the command as typed, for the hint. */
export function shellsReport(state: ToolState, args: string, name = "tasks", now = new Date()): string {
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return listing(state, name, now);
  if (words[0] !== "kill" || words.length !== 2) return `/${name} takes nothing, or kill <id> to stop a background shell, not "${args.trim()}".`;
  const shell = state.shells.get(words[1]!);
  if (!shell) return `No background shell "${words[1]}". ${listing(state, name, now)}`;
  const killed = killShell(shell);
  if (killed === "killed") return `Killed background shell ${shell.id}: ${shell.command}`;
  if (killed === "leftovers") return `Background shell ${shell.id} had ended (${shell.status}); the processes it left running were stopped.`;
  return `Background shell ${shell.id} is not running (${describeStatus(shell)}): nothing to kill.`;
}

function listing(state: ToolState, name: string, now: Date): string {
  const shells = [...state.shells.values()].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  if (shells.length === 0) return "No background shells: Bash starts one with run_in_background, or Ctrl+B moves a running command to the background.";
  const running = shells.filter((shell) => shell.status === "running").length;
  const rows = shells.map((shell) => [shell.id, describeStatus(shell), runtime(shell, now), oneLine(shell.command)]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  return [
    `Background shells: ${running} running of ${shells.length}`,
    "",
    ...rows.map((row) => `  ${row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  ")}`),
    "",
    `/${name} kill <id> stops one; the agent reads their output with BashOutput.`,
  ].join("\n");
}

function describeStatus(shell: BackgroundShell): string {
  return shell.exitCode !== null && shell.status !== "killed" ? `${shell.status} (exit ${shell.exitCode})` : shell.status;
}

/** How long it ran, or has run so far: 45s, 3m 05s, 2h 01m. */
function runtime(shell: BackgroundShell, now: Date): string {
  const seconds = Math.max(0, Math.round(((shell.endedAt ?? now).getTime() - shell.startedAt.getTime()) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

function oneLine(command: string): string {
  const line = command.replace(/\s*\n\s*/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
