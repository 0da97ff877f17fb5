// Plan mode's way out, as in Claude Code: the model researches without changing anything, then
// presents its plan with ExitPlanMode. The call needs the user's approval (permissions/decide.ts);
// approved, it ends plan mode for the rest of the run and, through the mode.changed event, for the
// session's next runs. Rejected, the model stays in plan mode with the user's feedback.
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { APPROVED_PLAN, EXIT_PLAN_MODE_TOOL_NAME, PLAN_REFUSALS } from "./texts.ts";

/** Longest plan the tool takes, in characters. */
export const MAX_PLAN_CHARS = 100_000;

const description = `Presents your plan to the user and asks to leave plan mode, so that you can carry it out.

When to use it:
- Only in plan mode, once you have researched the task and know how you will carry it out.
- Only for tasks that will change files or run commands. A question about the code, or research the user asked for, needs no plan: answer it instead.
- Settle open questions with the user first (ask them in your reply); the plan says what you will do, not a list of options.

How to use it:
- plan: the steps you will take, in Markdown and concise: the files you will change and how, and how you will check the result.
- If the user approves, plan mode ends and you carry out the plan. If they reject it, plan mode stays on: revise the plan with their feedback and present it again.`;

export const exitPlanModeTool = defineTool({
  name: EXIT_PLAN_MODE_TOOL_NAME,
  description,
  readOnly: true,
  refusals: PLAN_REFUSALS,
  parameters: z.strictObject({
    plan: z.string().trim().min(1, "must not be empty").max(MAX_PLAN_CHARS).describe("The plan to carry out, in Markdown"),
  }),
  async execute(_args, { planMode }) {
    if (!planMode) return { content: "This agent has no plan mode to leave: give your plan or findings in your final reply instead.", isError: true };
    if (!planMode.active()) return { content: "Plan mode is not on, so there is no plan to approve: go ahead with the task.", isError: true };
    planMode.exit();
    return { content: APPROVED_PLAN };
  },
});
