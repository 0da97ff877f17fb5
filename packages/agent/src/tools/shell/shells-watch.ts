// Who hears of changes to a conversation's background shells (one started or moved to the
// background, one ended or killed): a run reports the list as shells.changed while it goes on, so
// that every client of the session shows the shells live (see RunAgentOptions.onKillShell).
import type { BackgroundShellInfo } from "@harness/protocol";
import { MAX_LISTED_SHELLS } from "@harness/protocol/shells";
import type { BackgroundShell } from "./background-shells.ts";

type Shells = ReadonlyMap<string, BackgroundShell>;

const watchers = new WeakMap<Shells, Set<() => void>>();
/** The map each shell is kept in, for the changes told of the shell alone (it ended, was killed). */
const owners = new WeakMap<BackgroundShell, Shells>();

/** `listener` hears of every change to `shells` until the returned function is called. */
export function watchShells(shells: Shells, listener: () => void): () => void {
  let set = watchers.get(shells);
  if (!set) watchers.set(shells, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Files `shell` under `shells`, whose watchers then hear of it and of its changes. */
export function ownShell(shell: BackgroundShell, shells: Shells): void {
  owners.set(shell, shells);
  shellsChanged(shells);
}

/** Tells the watchers of `shells` (or of the map `shell` is kept in) that something changed. */
export function shellsChanged(of: Shells | BackgroundShell): void {
  const shells = of instanceof Map ? of : owners.get(of as BackgroundShell);
  for (const listener of (shells && watchers.get(shells)) ?? []) {
    try {
      listener();
    } catch {
      // A failing listener changes nothing of the shells.
    }
  }
}

/** The longest command a listed shell shows, its cut mark included: the list goes whole to every
 * client at each change. */
export const MAX_LISTED_COMMAND_CHARS = 2_000;

/** The shells as the wire carries them, oldest first: at most MAX_LISTED_SHELLS (past it, the
 * running ones are kept before the finished ones, the newest of each), each command cut to
 * MAX_LISTED_COMMAND_CHARS with a mark that says so. */
export function shellList(shells: Shells): BackgroundShellInfo[] {
  const newestFirst = [...shells.values()].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
  const kept = [...newestFirst.filter((s) => s.status === "running"), ...newestFirst.filter((s) => s.status !== "running")].slice(0, MAX_LISTED_SHELLS);
  return kept
    .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime())
    .map((shell) => ({
      id: shell.id,
      command: listedCommand(shell.command),
      status: shell.status,
      startedAt: shell.startedAt.getTime(),
      ...(shell.endedAt && { endedAt: shell.endedAt.getTime() }),
      ...(shell.exitCode !== null && { exitCode: shell.exitCode }),
    }));
}

function listedCommand(command: string): string {
  if (command.length <= MAX_LISTED_COMMAND_CHARS) return command;
  const mark = `… (cut: ${command.length} characters)`;
  let head = command.slice(0, MAX_LISTED_COMMAND_CHARS - mark.length);
  // Not half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1) + " ";
  return head + mark;
}
