import type { AgentDefinition } from "./types.ts";

/** The Task tool's description: what it does, the agent types with their tools, and how to use it. */
export function taskDescription(agents: readonly AgentDefinition[]): string {
  const list = agents.length > 0 ? agents.map((agent) => `- ${agent.name}: ${agent.description} (Tools: ${toolsLabel(agent)})`).join("\n") : "- (none)";
  return `Launches a sub-agent that carries out a complex, multi-step task on its own and reports back. Each agent type has its own instructions and tools.

Available agent types and the tools they have:
${list}

Set subagent_type to one of these names.

When not to use it:
- To read a file whose path you know: use Read, it is faster.
- To find a specific definition such as "class Foo": use Glob or Grep directly.
- To search within a few known files: use Read.
- For work that fits none of the agent descriptions above.

Usage notes:
- When tasks are independent, launch several agents at once: make several Task calls in one reply.
- model picks the agent's model ("sonnet", "opus" or "haiku", or a model id) in place of the agent type's own model; leave it out unless the task calls for a stronger or a faster model.
- run_in_background: true starts the agent and answers at once with its agentId, so that you can go on with other work while it runs. You are notified (a task-notification message with its result) when it finishes; until then you know nothing of its results, so do not guess them. Do not check on it while you have other work to do; to wait for it now, call TaskOutput with its agentId; to stop it, call TaskStop. Leave it out when you need the result before you can go on.
- The agent returns one message when it is done. The user does not see it: tell the user what matters in it, briefly.
- Each agent starts fresh: it sees neither this conversation nor other agents' work, and you cannot send it follow-up messages. Write a detailed, self-contained prompt: the goal, what you already know, and exactly what it should return.
- Say clearly whether the agent should change code or only research (search, read, plan): it cannot guess your intent.
- The agent's results can generally be trusted; check critical claims before acting on them.
- If an agent's description says to use it proactively, do so without waiting for the user to ask.`;
}

function toolsLabel(agent: AgentDefinition): string {
  const base = agent.tools === undefined ? "all tools" : agent.tools.length > 0 ? agent.tools.join(", ") : "none";
  const removed = agent.disallowedTools ?? [];
  if (removed.length === 0) return base;
  if (agent.tools === undefined) return `all tools except ${removed.join(", ")}`;
  const left = agent.tools.filter((name) => !removed.includes(name));
  return left.length > 0 ? left.join(", ") : "none";
}
