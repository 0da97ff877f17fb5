// How a run ended, in the server's log: one line per run, so that an operator sees runs failing (a
// key refused, a model unreachable) without asking the users. Never the prompt or the reply.
import type { HarnessState } from "@harness/protocol";

/** How a run ended, from the state it left: failed with why (a reason of several lines, a hook's
 * output, has them joined, as every line of the log is one), cancelled, or completed. */
export function runEndOf(state: HarnessState): { status: "completed" | "cancelled" | "failed"; error?: string } {
  if (state.status === "error") return { status: "failed", error: (state.error || "no reason given").replace(/\s*[\r\n]+\s*/g, " ") };
  const last = state.messages.at(-1);
  return { status: last?.role === "assistant" && last.status === "cancelled" ? "cancelled" : "completed" };
}

/** "run completed", "run cancelled" or "run failed: <why>", from the state the run left. */
export function runEnd(state: HarnessState): string {
  const end = runEndOf(state);
  return end.error === undefined ? `run ${end.status}` : `run ${end.status}: ${end.error}`;
}
