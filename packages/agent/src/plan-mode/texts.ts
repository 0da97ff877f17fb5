// What plan mode tells the model, in every backend: the reminder a run in plan mode starts with, and
// the answers to a plan presented with ExitPlanMode. Text only, so that a backend that has its own
// ExitPlanMode (Claude Code) can load it without the tool.
import { systemReminder } from "../context/format-memory.ts";

export const EXIT_PLAN_MODE_TOOL_NAME = "ExitPlanMode";

/** Told to the model with the prompt of a run that starts in plan mode. */
export const PLAN_MODE_REMINDER = systemReminder(
  "Plan mode is on: the user wants a plan before anything changes. Until they approve one, do not edit, write or delete files, and run only commands that read; research the task by reading and searching, and ask the user about anything unclear. When you know what to do, present your plan with the ExitPlanMode tool for the user's approval. If the request is only a question, answer it; no plan is needed.",
);

/** What the model is told when the plan was not approved. */
export const PLAN_REFUSALS = {
  unattended:
    "No one can approve a plan in this run, so plan mode stays on. Give the complete plan as your final reply: the user reads it there.",
  denied(reason: string | undefined): string {
    const feedback = reason?.trim();
    return feedback
      ? `The user rejected the plan, so plan mode stays on. Their feedback: ${feedback}\nRevise the plan accordingly and present it again with ExitPlanMode, or ask them what they want.`
      : "The user rejected the plan, so plan mode stays on. Ask them what they want changed, or revise the plan and present it again with ExitPlanMode.";
  },
};

export const APPROVED_PLAN =
  "The user approved your plan, and plan mode is off: you may now edit files and run commands. Carry out the plan, starting with its first step, and keep the todo list up to date if you use one.";

