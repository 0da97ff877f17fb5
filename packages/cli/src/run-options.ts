// The values of `harness run`'s --agents (what its hooks and MCP servers hold included), --agent, --max-budget-usd, --fallback-model and
// --session-id, checked when the run starts: a mistake is one line naming the flag, and the run
// fails (exit 1), as `claude -p` fails it.
import type { AgentDefinition } from "@harness/agent";
import type { RunCommand } from "./run.ts";
import { parseInlineAgents, type InlineAgentChecks } from "./inline-agents.ts";

export type RunFlags = { agents?: AgentDefinition[]; mainAgent?: string; maxBudgetUsd?: number; fallbackModel?: string; sessionId?: string };

/** Claude Code's session ids are UUIDs; --session-id takes nothing else. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Dollars as people write them: 5, 0.50, .5 (no exponent, no sign). */
const AMOUNT = /^(\d+(\.\d*)?|\.\d+)$/;

/** The checked values, or what is wrong. `model` is the run's model when it names one. */
export async function checkRunFlags(command: RunCommand, model: string | undefined, env: Readonly<Record<string, string | undefined>>): Promise<RunFlags | string> {
  const flags: RunFlags = {};
  if (command.agents !== undefined) {
    const agents = parseInlineAgents(command.agents, await agentChecks(env));
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

/** The checks of what --agents' hooks and server definitions hold, as the run reads them. */
async function agentChecks(env: Readonly<Record<string, string | undefined>>): Promise<InlineAgentChecks> {
  const checks = await import("@harness/agent/config-checks");
  const keyed = (d: { key?: string; message: string }) => (d.key === undefined ? d.message : `${d.key}: ${d.message}`);
  return {
    hooks: (raw) => {
      const [problem] = checks.parseHooksConfig(raw, "--agents").diagnostics;
      return problem && keyed({ ...problem, key: problem.key?.replace(/^hooks\.?/, "") || undefined });
    },
    server: (name, raw) => {
      const parsed = checks.parseServerEntry(name, raw, { scope: "agent", file: "--agents", keyPrefix: name }, env);
      return parsed.ok ? undefined : keyed(parsed.diagnostic);
    },
  };
}
