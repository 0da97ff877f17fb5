// Telling, from the states a client sees, when the run a prompt started has ended: what the
// client's run() waits for. Commands are fire-and-forget on the wire, so the run is known by the
// user message the prompt becomes: one with the prompt's text that was not in the state it was
// sent from (the same prompt sent twice is two messages of different ids).
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import type { ServerError } from "./client.ts";

export type RunResult = {
  /** How the run ended: "error" when it failed (`state.error` says why), "cancelled" when it was
   * cancelled, else "complete". */
  status: "complete" | "error" | "cancelled";
  /** The user message the prompt became: its `id` is what rewind() and a fork take. */
  prompt: HarnessMessage;
  /** The assistant's last message after the prompt, as the run left it: its text, its tool calls. */
  reply: HarnessMessage;
  /** The session's state once the run had ended. */
  state: HarnessState;
};

export type RunWatch = {
  /** Whether `state` shows the prompt's run has started (its user message is there). */
  started(state: HarnessState): boolean;
  /** The result, once `state` shows the prompt's run started and no run is under way any more. */
  ended(state: HarnessState): RunResult | undefined;
};

/** Watches for the run `prompt` starts when sent from the state `before`. */
export function watchRun(prompt: string, before: HarnessState): RunWatch {
  const known = new Set(before.messages.map((message) => message.id));
  const promptAt = (state: HarnessState) => state.messages.findIndex((m) => m.role === "user" && m.content === prompt && !known.has(m.id));
  return {
    started: (state) => promptAt(state) >= 0,
    ended(state) {
      const at = promptAt(state);
      if (at < 0 || state.status === "running" || state.status === "awaiting-approval") return undefined;
      const reply = state.messages.slice(at + 1).findLast((m) => m.role === "assistant");
      if (!reply) return undefined;
      const status = state.status === "error" || reply.status === "error" ? "error" : reply.status === "cancelled" ? "cancelled" : "complete";
      return { status, prompt: state.messages[at], reply, state };
    },
  };
}

/** Whether an error frame that came before the run started is the server refusing the prompt: a
 * run already under way, or a submit that is not valid. Other commands' errors are not the run's. */
export function refusesPrompt(error: ServerError): boolean {
  return error.code === "busy" || error.message.startsWith("submit:");
}
