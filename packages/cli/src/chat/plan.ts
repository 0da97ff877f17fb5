// A plan presented with ExitPlanMode, answered as in Claude Code: approve it and auto-accept edits,
// approve it and review each edit, or keep planning with what to change. Pure: the line and the
// session's state in, what to do out. Approving with auto-accept is a change of permission mode
// (configure acceptEdits): the run takes a mode that allows the waiting call as its answer, and
// goes on in that mode; the other two answers are the approve and deny any call gets.
import type { HarnessCommand, HarnessState } from "@harness/protocol";

export const EXIT_PLAN_MODE = "ExitPlanMode";

/** A numbered answer to a plan: its choice, and what follows it. */
export const PLAN_ANSWER = /^\s*([123])(?:\s+([\s\S]*))?$/;

export type PlanAnswer =
  | { kind: "auto"; toolCallId: string }
  | { kind: "send"; command: HarnessCommand; said: string };

/** The lines under a plan that say how to answer it (`which`: its number, when several calls wait,
 * or "" when it is the only one). */
export function planChoices(which: string): string[] {
  if (which) return [`/approve${which} to leave plan mode and carry it out, /deny${which} [feedback] to keep planning`];
  return ["Would you like to proceed?", "  1  yes, and auto-accept edits", "  2  yes, and approve each edit (y)", "  3  no, keep planning: 3 [what to change] (n [what to change])"];
}

/** What `line` answers, when the oldest call waiting in `state` is a plan and the line is one of
 * its numbered choices; undefined otherwise (y, n, /approve and /deny answer it as any call). */
export function answerPlan(line: string, state: HarnessState | undefined): PlanAnswer | undefined {
  const oldest = state?.pendingApprovals?.[0];
  if (oldest?.toolName !== EXIT_PLAN_MODE) return undefined;
  const [, choice, reason] = PLAN_ANSWER.exec(line) ?? [];
  const toolCallId = oldest.toolCallId;
  const feedback = reason?.trim();
  switch (choice) {
    case "1":
      return feedback ? undefined : { kind: "auto", toolCallId };
    case "2":
      return feedback ? undefined : { kind: "send", command: { type: "approve", toolCallId }, said: "(plan approved: each edit asks for your approval)" };
    case "3":
      return {
        kind: "send",
        command: { type: "deny", toolCallId, ...(feedback && { reason: feedback }) },
        said: `(plan mode stays on${feedback ? ": what to change goes to the model" : ""})`,
      };
    default:
      return undefined;
  }
}
