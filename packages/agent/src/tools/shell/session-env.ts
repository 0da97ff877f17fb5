// CLAUDE_ENV_FILE, as Claude Code offers it: a file SessionStart hooks may append `export NAME=value`
// lines to. Every Bash command of the conversation, background ones included, sources it first, so
// what the hooks set there (a virtualenv, a toolchain's PATH) holds for all of them. It lives in a
// directory of its own under the workspace's (sandbox/tmp-dir.ts workspaceEnvDir), removed with the
// tool state: what a hook exports there (a token) is for this conversation's commands only.
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { ToolState } from "../state.ts";

/** The conversation's env file (made on first use; the file itself is the hooks' to create), or
 * undefined when no directory could be made under `dir`. */
export function sessionEnvFile(state: ToolState, dir: string): string | undefined {
  if (state.envFile === undefined && !state.disposed) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      state.envFile = path.join(mkdtempSync(path.join(dir, "session-")), "env.sh");
    } catch {
      return undefined;
    }
  }
  return state.envFile;
}

/** `command` preceded by sourcing the env file, when the hooks wrote anything to it. A line of its
 * own, so that nothing in the file can join the command's first line. */
export function withSessionEnv(command: string, state: ToolState | undefined): string {
  const file = state?.envFile;
  if (file === undefined) return command;
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    return command;
  }
  return size > 0 ? `. '${file.replaceAll("'", `'\\''`)}'\n${command}` : command;
}

export function removeSessionEnv(state: ToolState): void {
  if (state.envFile === undefined) return;
  const own = path.dirname(state.envFile);
  rmSync(own, { recursive: true, force: true });
  try {
    rmdirSync(path.dirname(own));
  } catch {
    // Another conversation in the same directory still has its file there.
  }
}
