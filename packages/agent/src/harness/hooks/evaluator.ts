// The model behind prompt and agent hooks: one question to a small fast model, or a read-only
// sub-agent that looks at the project before it answers.
import type { Provider } from "@harness/llm";
import type { Usage } from "@harness/protocol";
import type { HookEvaluator } from "../../hooks/types.ts";
import { resolveHookModel } from "../../subagents/agent-model.ts";
import { textOf } from "../../loop/transcript.ts";
import type { RunAgentOptions, RunAgentResult } from "../../types.ts";
import { besideParent } from "../model/model.ts";

/** What a prompt hook's model is told, besides the question. */
export const PROMPT_HOOK_SYSTEM_PROMPT = `You decide, for a hook of a coding agent, whether what the agent is about to do (or has just done) may go on. The user's message holds the criteria and the event, as JSON.

Answer with one JSON object and nothing else:
- {"ok": true} when the criteria are met and the agent may go on;
- {"ok": false, "reason": "..."} when they are not, the reason saying what is wrong and what to do instead.`;

/** What an agent hook's sub-agent is told: it may look before it answers. */
export const AGENT_HOOK_SYSTEM_PROMPT = `You verify a condition for a hook of a coding agent. The user's message holds the criteria and the event, as JSON. Use Read, Grep and Glob to look at the project as far as you need; change nothing.

When you know, end with one JSON object and nothing after it:
- {"ok": true} when the criteria are met;
- {"ok": false, "reason": "..."} when they are not, the reason saying what is wrong and what to do instead.`;

/** The longest answer a prompt hook's model may give; a verdict is a line. */
const PROMPT_HOOK_MAX_TOKENS = 1_024;

export type HookAgentRequest = { prompt: string; model: string; provider: Provider; signal: AbortSignal };

export type HookEvaluatorDeps = {
  /** The run's options: its environment (which model "haiku" is) and provider overrides. */
  options: RunAgentOptions;
  /** The run's model and provider as they are now (a configure may have changed them). */
  current: () => { model: string; provider: Provider };
  /** Counts a model call's usage in the run's. */
  record: (model: string, usage: Usage) => void;
  /** Runs an agent hook's sub-agent; without it, agent hooks fail with a notice. */
  runAgent?: (request: HookAgentRequest) => Promise<RunAgentResult>;
};

export function hookEvaluator(deps: HookEvaluatorDeps): HookEvaluator {
  return async ({ kind, prompt, model: setting, signal }) => {
    const current = deps.current();
    const model = resolveHookModel(setting, current.model, deps.options.env ?? process.env);
    const routed = besideParent(deps.options, model, current);
    if ("error" in routed) return { error: `its model ${model} cannot be used: ${routed.error}` };
    if (kind === "agent") {
      if (!deps.runAgent) return { error: "agent hooks cannot run here" };
      const result = await deps.runAgent({ prompt, model: routed.model, provider: routed.provider, signal });
      deps.record(routed.model, result.usage);
      if (result.stopReason === "end_turn") return { text: result.result };
      if (result.stopReason === "aborted") return { error: "it was cancelled" };
      if (result.stopReason === "max_turns") return { error: "its agent used up its turns without a verdict" };
      return { error: result.errorMessage ?? "its agent failed" };
    }
    return askOnce(routed.provider, routed.model, prompt, signal, deps.record);
  };
}

async function askOnce(provider: Provider, model: string, question: string, signal: AbortSignal, record: HookEvaluatorDeps["record"]): Promise<{ text: string } | { error: string }> {
  try {
    for await (const event of provider.stream({ model, system: PROMPT_HOOK_SYSTEM_PROMPT, messages: [{ role: "user", content: question }], maxTokens: PROMPT_HOOK_MAX_TOKENS, signal })) {
      if (event.type !== "done") continue;
      record(model, event.usage);
      if (event.stopReason === "aborted") return { error: "it was cancelled" };
      if (event.stopReason === "error") return { error: `its model request failed: ${event.errorMessage ?? "unknown error"}` };
      return { text: textOf(event.message) };
    }
    return { error: `its model request failed: the ${provider.name} stream ended without a final event` };
  } catch (error) {
    return { error: `its model request failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
