// Answering a run's approvals from a callback, as the Claude Agent SDK's canUseTool does: run()'s
// onApproval. A state listener that approves what it sees would answer one call many times (every
// state until the server's answer arrives shows it waiting); this asks once per call.
import type { HarnessCommand, HarnessMessage, HarnessState } from "@harness/protocol";

export type ApprovalRequest = {
  toolCallId: string;
  /** The tool, by Claude Code's names: Bash, Write, Edit, mcp__<server>__<tool>… */
  toolName: string;
  /** What the call does, in a line (the command, the file), for a question to the user. */
  description: string;
  /** The call's input, as the model gave it. */
  input?: Record<string, unknown>;
};
/** As runAgent's approve answers (and the Agent SDK's canUseTool, whose "deny" says `message`):
 * "deny"'s reason goes to the model. */
export type ApprovalAnswer = { behavior: "allow" } | { behavior: "deny"; reason?: string };
export type OnApproval = (request: ApprovalRequest, state: HarnessState) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** A state listener that asks `onApproval` about each call of `replies(state)` (the run's own
 * messages) waiting for approval, once, and sends the answer. A callback that throws denies the
 * call, saying so; an answer that comes after the client closed is dropped. */
export function approvalAnswerer(onApproval: OnApproval, replies: (state: HarnessState) => HarnessMessage[], send: (command: HarnessCommand) => void) {
  const asked = new Set<string>();
  return (state: HarnessState): void => {
    const pending = state.pendingApprovals ?? [];
    if (pending.length === 0) return;
    const calls = new Map(replies(state).flatMap((message) => message.toolCalls ?? []).map((call) => [call.id, call]));
    for (const { toolCallId, toolName, description } of pending) {
      const call = calls.get(toolCallId);
      if (!call || asked.has(toolCallId)) continue;
      asked.add(toolCallId);
      const request: ApprovalRequest = { toolCallId, toolName, description, ...(call.input && { input: call.input }) };
      void (async () => {
        let command: HarnessCommand;
        try {
          command = commandFor(toolCallId, await onApproval(request, state));
        } catch (error) {
          command = { type: "deny", toolCallId, reason: `the program's onApproval failed: ${error instanceof Error ? error.message : String(error)}` };
        }
        try {
          send(command);
        } catch {
          // The client closed meanwhile: the run is no longer this program's to answer.
        }
      })();
    }
  };
}

function commandFor(toolCallId: string, answer: ApprovalAnswer): HarnessCommand {
  if (answer?.behavior === "allow") return { type: "approve", toolCallId };
  if (answer?.behavior === "deny") return { type: "deny", toolCallId, ...(answer.reason ? { reason: answer.reason } : {}) };
  throw new Error(`onApproval must answer {behavior: "allow"} or {behavior: "deny", reason?}, not ${JSON.stringify(answer)}`);
}
