// CLAUDE_ENV_FILE, as Claude Code offers it: a file SessionStart hooks may append `export NAME=value`
// lines to. Every Bash command of the conversation, background ones included, sources it first, so
// what the hooks set there (a virtualenv, a toolchain's PATH) holds for all of them. It lives in a
// directory of its own under the session's temporary directory, removed with the tool state.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { ToolState } from "./state.ts";

/** The conversation's env file (made on first use; the file itself is the hooks' to create), or
 * undefined when no directory could be made under `tmp`. */
export function sessionEnvFile(state: ToolState, tmp: string): string | undefined {
  if (state.envFile === undefined && !state.disposed) {
    try {
      state.envFile = path.join(mkdtempSync(path.join(tmp, "harness-env-")), "env.sh");
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
  if (state.envFile !== undefined) rmSync(path.dirname(state.envFile), { recursive: true, force: true });
}
