// Where an agent's Bash commands start, as in Claude Code: where the last one that moved ended
// (`cd sub` holds for the next call), back in the project's directory when that was outside the
// working directories (with the note Claude Code gives), or always there with
// CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR. Exported variables and other shell state do not carry over.
import path from "node:path";
import { envSwitch } from "../../env/number.ts";
import { isDirectory } from "../../files/make-dirs.ts";
import { isWithin, realPathOf } from "../../files/real-paths.ts";

/** Where one agent's shell is: the main agent's lives in the conversation's tool state, so that it
 * holds across runs; a sub-agent has its own. Absent `dir`: the project's directory. */
export type ShellSlot = { dir?: string };

export type ShellCwd = {
  /** Where the next command starts, and the note for its output when the directory the shell was
   * in is gone and the project's is taken instead. */
  start(): { dir: string; note?: string };
  /** Where the shell is, for the file tools' relative paths (Claude Code's getCwd): the project's
   * directory when the shell's is gone, without putting it back (the next command says so). A
   * directory inside the project is spelt from the project's path, as the permissions and the
   * paths shown have it, though the shell reports it with links resolved. */
  current(): string;
  /** A foreground command that started in `started` ended in `ended` (`pwd -P` in its shell;
   * undefined when it could not tell). Returns the note for its output when the shell is put back
   * in the project's directory. A command that ended where it started moves nothing, so that of
   * calls running at once, the last of those that moved decides. */
  ended(started: string, ended: string | undefined): string | undefined;
};

export type ShellCwdOptions = {
  /** The run's working directory, where the shell starts and returns to. */
  project: string;
  slot: ShellSlot;
  /** Whether a directory (its links resolved) is in the run's working directories, as the
   * permissions have them at the time (an approval may add one). */
  allowed: (real: string) => boolean;
  /** CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: every command starts in the project's directory. */
  maintain: boolean;
};

/** Claude Code's note, appended to the output of the command after which the shell was put back. */
export const resetNote = (project: string) => `Shell cwd was reset to ${project}`;

export function createShellCwd({ project, slot, allowed, maintain }: ShellCwdOptions): ShellCwd {
  return {
    start() {
      if (maintain || slot.dir === undefined) return { dir: project };
      if (isDirectory(slot.dir)) return { dir: slot.dir };
      slot.dir = undefined;
      return { dir: project, note: resetNote(project) };
    },
    current() {
      if (maintain || slot.dir === undefined || !isDirectory(slot.dir)) return project;
      const real = realPathOf(project);
      return isWithin(slot.dir, real) ? path.join(project, path.relative(real, slot.dir)) : slot.dir;
    },
    ended(started, ended) {
      if (maintain || ended === undefined || ended === realPathOf(started)) return undefined;
      if (ended === realPathOf(project)) {
        slot.dir = undefined;
        return undefined;
      }
      if (allowed(ended)) {
        slot.dir = ended;
        return undefined;
      }
      slot.dir = undefined;
      return resetNote(project);
    },
  };
}


/** CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR, from the run's environment or the settings' env. */
export function maintainsProjectCwd(env: Readonly<Record<string, string | undefined>>): boolean {
  return envSwitch(env, "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR");
}
