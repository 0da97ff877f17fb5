// A prompt made ready for the model: a slash command's or skill's, however it was invoked (the
// user's /name, or the model's Skill call), has its `!` commands run, their output in their place;
// then the files any prompt names with `@path`, the user's own included, are read and put after it.
import { attachMentionedFiles } from "../mentions/files.ts";
import { runShellCommands } from "./shells.ts";
import type { ExpandedText } from "../mentions/expanded-text.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** `shell`: the command's or skill's own text has `!` commands (its arguments alone never make any
 * run). */
export async function expandCommandText(ctx: RunContext, state: RunState, text: string, shell: boolean): Promise<ExpandedText> {
  const shelled = shell ? await runShellCommands(ctx, state, text) : text;
  return attachMentionedFiles(ctx, state, shelled);
}
