// Ctrl+B in `harness chat`, as in Claude Code: a running Bash call goes to the background, the run
// going on (the session's `background` command).
import type { HarnessState } from "@harness/protocol";

/** Whether a Bash call of the run under way (a sub-agent's too) is running: Ctrl+B then moves it. */
export function runningBash(state: HarnessState | undefined): boolean {
  if (state?.status !== "running" && state?.status !== "awaiting-approval") return false;
  return state.messages.some((message) => message.toolCalls?.some((call) => call.name === "Bash" && call.status === "running") ?? false);
}
