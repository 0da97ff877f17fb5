// How a run ended, in the server's log: one line per run, so that an operator sees runs failing (a
// key refused, a model unreachable) without asking the users. Never the prompt or the reply.
import type { HarnessState } from "@harness/protocol";

/** "run completed", "run cancelled" or "run failed: <why>", from the state the run left; one line
 * (a reason of several lines, a hook's output, has them joined), as every line of the log is. */
export function runEnd(state: HarnessState): string {
  if (state.status === "error") return `run failed: ${(state.error || "no reason given").replace(/\s*[\r\n]+\s*/g, " ")}`;
  const last = state.messages.at(-1);
  return last?.role === "assistant" && last.status === "cancelled" ? "run cancelled" : "run completed";
}
