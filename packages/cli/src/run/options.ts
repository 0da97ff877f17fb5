// The values of `harness run`'s --agents (what its hooks and MCP servers hold included), --agent, --max-budget-usd, --fallback-model and
// --session-id, checked when the run starts: a mistake is one line naming the flag, and the run
// fails (exit 1), as `claude -p` fails it.
import type { AgentDefinition } from "@harness/agent";
import type { RunCommand } from "./run.ts";
import { parseInlineAgents } from "./inline-agents.ts";

export type RunFlags = { agents?: AgentDefinition[]; mainAgent?: string; maxBudgetUsd?: number; fallbackModel?: string; sessionId?: string };

/** Claude Code's session ids are UUIDs; --session-id takes nothing else. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Dollars as people write them: 5, 0.50, .5 (no exponent, no sign). */
const AMOUNT = /^(\d+(\.\d*)?|\.\d+)$/;

/** The checked values, or what is wrong. `model` is the run's model when it names one; `warn` says
 * what a value holds that is not acted on. */
export async function checkRunFlags(command: Pick<RunCommand, "agents" | "agent" | "maxBudgetUsd" | "fallbackModel" | "sessionId">, model: string | undefined, env: Readonly<Record<string, string | undefined>>, warn: (message: string) => void): Promise<RunFlags | string> {
  const flags: RunFlags = {};
  if (command.agents !== undefined) {
    const { inlineAgentChecks } = await import("./agent-checks.ts");
    const agents = parseInlineAgents(command.agents, inlineAgentChecks(env, "--agents"), (note) => warn(`--agents: ${note}`));
    if (typeof agents === "string") return `--agents: ${agents}`;
    flags.agents = agents;
  }
  if (command.agent !== undefined) flags.mainAgent = command.agent.trim();
  if (command.maxBudgetUsd !== undefined) {
    const text = command.maxBudgetUsd.trim();
    const amount = AMOUNT.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(amount) || amount <= 0) return `--max-budget-usd must be a positive amount in US dollars, such as 0.50, not "${command.maxBudgetUsd}"`;
    flags.maxBudgetUsd = amount;
  }
  if (command.fallbackModel !== undefined) {
    const fallback = command.fallbackModel.trim();
    if (model !== undefined && fallback === model) return `--fallback-model must differ from the main model (${model}): it is what the run goes on with when that one is overloaded`;
    flags.fallbackModel = fallback;
  }
  if (command.sessionId !== undefined) {
    if (!UUID.test(command.sessionId)) return `--session-id must be a UUID (such as 0f8fad5b-d9cb-469f-a165-70867728950e), not "${command.sessionId}"`;
    flags.sessionId = command.sessionId.toLowerCase();
  }
  return flags;
}
