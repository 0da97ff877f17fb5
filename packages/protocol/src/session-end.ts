// Why a conversation ends, as Claude Code tells its SessionEnd hooks (`reason`): "clear" (/clear),
// "logout", "prompt_input_exit" (the user left at the prompt: Ctrl+D, /exit, Ctrl+C twice), "other".
// A conversation ends where its resources go: with a run (harness run), or on the runner when its
// workspace is closed (DELETE /workspaces/:id {reason?}), which a session server does when the
// session leaves memory or the server stops. A client says how it left in its WebSocket close
// frame (code 1000, reason "left: <reason>"), kept by the session for when it ends.
// Without zod: clients import it (see client-side.ts).

export const SESSION_END_REASONS = ["clear", "logout", "prompt_input_exit", "other"] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

const LEFT = "left: ";

/** The close frame's reason of a client that leaves for `reason`. */
export function leftCloseReason(reason: SessionEndReason): string {
  return `${LEFT}${reason}`;
}

/** How a client left, from its close frame's reason; undefined when it does not say. */
export function leftReasonOf(closeReason: string): SessionEndReason | undefined {
  if (!closeReason.startsWith(LEFT)) return undefined;
  const said = closeReason.slice(LEFT.length);
  return SESSION_END_REASONS.find((reason) => reason === said);
}
