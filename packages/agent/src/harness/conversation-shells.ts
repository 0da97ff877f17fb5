// The conversation's background shells as its host reaches them between runs, when no run reports
// them (shells.changed) nor takes the user's kills: listed, watched for changes, killed, and asked
// whether one more may start (the host refuses a move to the background past the limit).
import type { BackgroundShellInfo, KillShellAnswer } from "@harness/protocol";
import { killShellById } from "./reports/shells.ts";
import { shellCapProblem } from "../tools/shell/shell-cap.ts";
import { shellList, watchShells } from "../tools/shell/shells-watch.ts";
import type { ToolState } from "../tools/state.ts";

export type ConversationShells = {
  /** The shells as the wire carries them (shells.changed's list). */
  list(): BackgroundShellInfo[];
  /** `listener` hears of every change to the shells (one started, moved, ended or killed) until the
   * returned function is called. */
  watch(listener: () => void): () => void;
  /** Stops shell `shellId`, as /tasks kill does. */
  kill(shellId: string): KillShellAnswer;
  /** Why one more background shell may not start now (HARNESS_MAX_BACKGROUND_SHELLS), or undefined. */
  full(): string | undefined;
};

/** `env`: where HARNESS_MAX_BACKGROUND_SHELLS is read (default this process's environment). */
export function conversationShells(state: ToolState, env: Readonly<Record<string, string | undefined>> = process.env): ConversationShells {
  return {
    list: () => shellList(state.shells),
    watch: (listener) => watchShells(state.shells, listener),
    kill: (shellId) => killShellById(state, shellId),
    full: () => shellCapProblem(state.shells, env),
  };
}
