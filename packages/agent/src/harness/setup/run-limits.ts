// What a run does about its cost (RunAgentOptions.maxBudgetUsd) and an overloaded model
// (RunAgentOptions.fallbackModel).
import { priceOf } from "@harness/llm";
import { claudeAlias } from "../../subagents/agent-model.ts";
import type { TurnOutcome } from "../../loop/stream-turn.ts";
import { providerFor } from "../model/model.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** Why the agent stops before its next model call: what the run has cost so far reached its
 * budget. That is the main agent's calls and those of every sub-agent, the ones still running too
 * (RunSpend), so that parallel sub-agents stop as soon as the main agent would. Undefined while it
 * has not. The calls of a model whose price is not known cost nothing as counted (see pricedCall):
 * the main agent says so once, before its first call (not for a model whose calls are free). */
export function budgetReached(ctx: RunContext, state: RunState): string | undefined {
  const budget = ctx.options.maxBudgetUsd;
  if (budget === undefined) return undefined;
  if (!ctx.subagent && state.turns.length === 0) {
    const unpriced = !ctx.options.provider && priceOf(ctx.model) === undefined && !ctx.provider.callsFree?.(ctx.model);
    if (unpriced) ctx.notice("warning", `The price of ${ctx.model} is not known: the run's budget of $${budget} cannot be held to.`);
    return undefined;
  }
  // What earlier turns of the same run (harness run --input-format stream-json) spent counts too.
  const cost = state.spend.usd + (ctx.options.budgetSpentUsd ?? 0);
  if (cost < budget) return undefined;
  const spent = `($${cost.toFixed(6)}) reached its budget of $${budget}`;
  return ctx.subagent ? `The agent stopped before its next model call: what the run has cost ${spent}.` : `The run stopped: what it has cost ${spent}. Send another message to continue.`;
}

/** Whether the model said it is overloaded (HTTP 529, or an overloaded_error in its stream). */
function overloaded(outcome: TurnOutcome): boolean {
  const code = outcome.error?.code;
  return code === "529" || code === "overloaded_error";
}

/** When the turn failed because the run's model is overloaded and the run has a fallback model it
 * is not already using, the run switches to it for the rest of the run, saying so, and the turn is
 * sent again: true. Only a turn that streamed nothing is sent again (nothing shown is taken back). */
export function fellBack(ctx: RunContext, state: RunState, outcome: TurnOutcome): boolean {
  const wanted = ctx.options.fallbackModel?.trim();
  if (!wanted || outcome.message !== undefined || !overloaded(outcome)) return false;
  const model = claudeAlias(wanted, ctx.options.env ?? process.env) ?? wanted;
  if (model === ctx.model) return false;
  const routed = providerFor(ctx.options, model);
  if (!routed.ok) {
    ctx.notice("warning", `The fallback model ${wanted} cannot be used: ${routed.error}`);
    return false;
  }
  // Named with its routing prefix ("openai/…"), the fallback may be the model already in use.
  if (routed.model === ctx.model) return false;
  ctx.notice("warning", `${ctx.model} is overloaded; the run goes on with the fallback model ${routed.model}.`);
  ctx.model = routed.model;
  ctx.provider = routed.provider;
  state.model = routed.model;
  return true;
}
