// Telling, from the states a client sees, when the run a prompt started has ended: what the
// client's run() waits for. Commands are fire-and-forget on the wire, so the run is known by the
// user message the prompt becomes: one with the prompt's text that was not in the state it was
// sent from (the same prompt sent twice is two messages of different ids).
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import type { Watch } from "./watch.ts";
import type { OnApproval } from "./approvals.ts";

export type RunResult = {
  /** How the run ended: "error" when it failed (`state.error` says why), "cancelled" when it was
   * cancelled, else "complete"; with `untilApproval`, "awaiting-approval" when it has not ended but
   * waits for an answer about a call (`state.pendingApprovals`). */
  status: "complete" | "error" | "cancelled" | "awaiting-approval";
  /** The user message the prompt became: its `id` is what rewind() and a fork take. */
  prompt: HarnessMessage;
  /** The assistant's last message after the prompt, as the run left it: its text, its tool calls. */
  reply: HarnessMessage;
  /** The session's state once the run had ended. */
  state: HarnessState;
};

export type RunOptions = {
  /** Above 0: run() fails after this long (the run goes on). */
  timeoutMs?: number;
  /** Asked once about each of the run's tool calls that waits for approval. */
  onApproval?: OnApproval;
  /** Given the text the run's replies gain, as it streams, each part once, with the reply it is of
   * (a steer the model read starts another). Read from the state, so a snapshot a reconnect brings
   * instead of the missed deltas loses nothing. */
  onText?: (text: string, reply: HarnessMessage) => void;
  /** Likewise, the thinking the run's replies gain (their `thinking`), before their text. Thinking
   * the session withdraws (the model was asked again after its stream broke off) is not taken
   * back: what follows it is given from where it now ends. */
  onThinking?: (text: string, reply: HarnessMessage) => void;
  /** Resolve also when the run waits for approval, for a program that answers it later itself (a
   * piped chat reads the answer from its next line): without it, such a run is waited through. */
  untilApproval?: boolean;
};

/** The server refused run()'s prompt: `code` is its error code ("busy" while a run is under way,
 * "bad_command" for a prompt it does not take). */
export class RunRefusedError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.name = "RunRefusedError";
    this.code = code;
  }
}

/** Watches for the run `prompt` starts when sent from the state `before`: it settles once the run
 * has ended, or when the server refuses the prompt before the run started (a run already under
 * way, a submit that is not valid: other commands' errors are not the run's). */
export function watchRun(prompt: string, before: HarnessState, timeoutMs = 0, untilApproval = false): Watch<RunResult> & { replies(state: HarnessState): HarnessMessage[] } {
  const known = new Set(before.messages.map((message) => message.id));
  // Once found, the prompt's message is looked for where it was: a long conversation's every delta
  // is not a scan of it.
  let found: { id: string; at: number } | undefined;
  const promptAt = (state: HarnessState): number => {
    const { messages } = state;
    if (found) {
      if (messages[found.at]?.id !== found.id) found.at = messages.findIndex((m) => m.id === found!.id);
      return found.at;
    }
    for (let at = messages.length - 1; at >= 0; at--) {
      const m = messages[at];
      if (m.role === "user" && m.content === prompt && !known.has(m.id)) {
        found = { id: m.id, at };
        return at;
      }
    }
    return -1;
  };
  let started = false;
  return {
    state(state) {
      const at = promptAt(state);
      // A prompt seen once and then gone (a reconnect's snapshot from a server killed before it
      // stored it, or a cleared conversation) leaves nothing that could end the run.
      if (at < 0) return found ? { error: new Error("run: the session no longer has this run's prompt: the server lost it (it stopped before storing it) or the conversation was cleared") } : undefined;
      started = true;
      const waits = untilApproval && state.status === "awaiting-approval";
      if (state.status === "running" || (state.status === "awaiting-approval" && !waits)) return undefined;
      const reply = state.messages.slice(at + 1).findLast((m) => m.role === "assistant");
      if (!reply) return undefined;
      const status = waits ? "awaiting-approval" : state.status === "error" || reply.status === "error" ? "error" : reply.status === "cancelled" ? "cancelled" : "complete";
      return { value: { status, prompt: state.messages[at], reply, state } };
    },
    error(error) {
      // Errors of a command but submit start with its name ("rewind: a run is in progress…").
      const refused = error.message.startsWith("submit:") || (error.code === "busy" && !/^[a-z]+: /.test(error.message));
      if (started || !refused) return undefined;
      return { error: new RunRefusedError(`run: ${error.message}`, error.code) };
    },
    closed: (why) => ({ error: new Error(`run: ${why}`) }),
    /** The messages after the prompt: the run's own; none before it started. */
    replies(state) {
      const at = promptAt(state);
      return at < 0 ? [] : state.messages.slice(at + 1);
    },
    timeoutMs,
    timedOut: () => ({ error: new Error(`run: no end of the run after ${timeoutMs} ms (it goes on in the session: cancel() stops it)`) }),
  };
}

/** A state listener that passes `onText` what the assistant messages of `replies(state)` gained
 * since it last saw them, in their `field` (the reply's text, or its thinking). */
export function textFollower(onText: (text: string, reply: HarnessMessage) => void, replies: (state: HarnessState) => HarnessMessage[], field: "content" | "thinking" = "content") {
  const told = new Map<string, number>();
  return (state: HarnessState): void => {
    for (const reply of replies(state)) {
      if (reply.role !== "assistant") continue;
      const text = reply[field] ?? "";
      const seen = told.get(reply.id) ?? 0;
      if (text.length <= seen) {
        // Withdrawn thinking: what replaces it is given whole.
        if (text.length < seen && field === "thinking") told.set(reply.id, text.length);
        continue;
      }
      told.set(reply.id, text.length);
      onText(text.slice(seen), reply);
    }
  };
}
