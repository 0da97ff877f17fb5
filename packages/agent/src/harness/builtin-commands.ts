// The built-in slash commands that change the conversation itself (see prompt.ts for all of them).
import type { RunAgentResult } from "../types.ts";
import { compactConversation } from "./compaction.ts";
import { finish, reply } from "./finish.ts";
import { resourceInternals } from "./resources.ts";
import type { RunContext } from "./run-context.ts";
import { replaceTranscript, type RunState } from "./run-state.ts";
import { memoryAtStart, startSession } from "./session-hooks.ts";

/** /compact [instructions]: summarizes the conversation now; the summary is the reply. */
export async function compactCommand(ctx: RunContext, state: RunState, instructions: string): Promise<RunAgentResult> {
  const outcome = await compactConversation(ctx, state, "manual", instructions);
  if (!outcome.ok) return finish(state, ctx.options.signal.aborted ? "aborted" : "error", outcome.error);
  return reply(state, outcome.summary);
}

/** /clear: ends the session for the hooks and starts a new one, with an empty conversation, no
 * files read and no todos. */
export async function clearCommand(ctx: RunContext, state: RunState): Promise<RunAgentResult> {
  const { signal } = ctx.options;
  await ctx.hooks.run("SessionEnd", { reason: "clear" }, signal);
  resourceInternals(ctx.resources).sessionStarted = true;
  // The memory files begin the new conversation as they began the first.
  await startSession(ctx.hooks, "clear", signal, memoryAtStart(ctx.setup.memory, state));
  ctx.resources.toolState.files.clear();
  ctx.resources.toolState.todos = [];
  replaceTranscript(state, []);
  ctx.notice("info", "Started a new conversation: the earlier messages are no longer in the model's context.");
  return finish(state, "end_turn");
}
