// The main loop's side of background agents (Task with run_in_background): each one that ends is
// told to the model as a task-notification before its next request, and a reply that would end the
// run waits for those still running instead, as Claude Code does. The run's end stops any left.
import { createBackgroundAgents } from "../../subagents/background-agents.ts";
import { taskNotification } from "../../subagents/task-notification.ts";
import { withUserText } from "../../loop/transcript.ts";
import { addUsage } from "../../loop/usage.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** Gives a main run its background agents, whose usage joins the run's as each ends. */
export function startBackgroundAgents(ctx: RunContext, state: RunState): void {
  if (ctx.subagent) return;
  state.agents = createBackgroundAgents(ctx.options.signal, {
    onEnd: (agent) => {
      if (agent.output?.usage) addUsage(state.usage, agent.output.usage);
    },
  });
}

/** Adds a task-notification for each agent that has ended since the last time, unless the model
 * had its result from TaskOutput; whether there were any. */
export function takeBackgroundNotifications(state: RunState): boolean {
  const finished = state.agents?.takeFinished() ?? [];
  for (const agent of finished) {
    state.messages = withUserText(state.messages, taskNotification(agent));
    state.emit({ type: "notice", level: "info", message: `The background agent "${agent.description}" (${agent.id}) ${agent.status}.` });
  }
  return finished.length > 0;
}

/** When the model would end the run with agents still running (or ended, not yet told): waits for
 * the next to end and adds its notification; whether the run goes on. False when the run is
 * cancelled meanwhile. */
export async function awaitBackgroundAgents(ctx: RunContext, state: RunState): Promise<boolean> {
  const agents = state.agents;
  while (agents?.pending()) {
    await agents.nextEnd(ctx.options.signal);
    if (ctx.options.signal.aborted) return false;
    if (takeBackgroundNotifications(state)) return true;
  }
  return false;
}

/** Stops the agents still running (the run ended another way: cancelled, out of turns, failed) and
 * waits for them to end. */
export async function stopBackgroundAgents(state: RunState): Promise<void> {
  const agents = state.agents;
  if (!agents) return;
  for (const agent of agents.list()) agent.stop();
  await agents.settled();
}
