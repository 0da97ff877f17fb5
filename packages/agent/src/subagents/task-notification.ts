// What tells the main agent that a background agent has ended: Claude Code's task-notification, a
// user message with the agent's id, status, final reply and what it used.
import type { BackgroundAgent } from "./background-agents.ts";

/** The agent's final reply (or why it has none yet). */
export function outputText(agent: BackgroundAgent): string {
  return agent.output?.content ?? "(no output yet)";
}

export function taskNotification(agent: BackgroundAgent): string {
  const usage = agent.output?.usage;
  const tokens = usage ? usage.inputTokens + usage.outputTokens : 0;
  const ms = (agent.endedAt ?? Date.now()) - agent.startedAt;
  return [
    "<task-notification>",
    `<task-id>${agent.id}</task-id>`,
    `<status>${agent.status}</status>`,
    `<summary>Agent ${JSON.stringify(agent.description)} ${agent.status}</summary>`,
    `<result>${outputText(agent)}</result>`,
    `<usage>total_tokens: ${tokens}\ntool_uses: ${agent.output?.toolUses ?? 0}\nduration_ms: ${ms}</usage>`,
    "</task-notification>",
  ].join("\n");
}
