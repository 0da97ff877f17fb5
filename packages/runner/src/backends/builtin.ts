// The builtin backend: our own agent loop (@harness/agent) on an Anthropic provider.
import { resolve } from "node:path";
import { runAgent } from "@harness/agent";
import { createAnthropicProvider, defaultModel, type ModelMessage, type Provider } from "@harness/llm";
import type { RunnerQuery, TranscriptMessage } from "@harness/protocol";
import type { Backend, RunOutcome } from "../backend.ts";

export type BuiltinBackendOptions = {
  /** Chooses the model provider for a query. Default: the Anthropic API with the query's key, else
   * ANTHROPIC_API_KEY from the environment. */
  provider?: (query: RunnerQuery) => Provider;
};

export const MISSING_KEY_MESSAGE = "ANTHROPIC_API_KEY is not set";

export function builtinBackend(opts: BuiltinBackendOptions = {}): Backend {
  return {
    name: "builtin",
    async run(query, ctx): Promise<RunOutcome> {
      let provider: Provider;
      if (opts.provider) {
        provider = opts.provider(query);
      } else {
        const apiKey = query.anthropicApiKey || process.env.ANTHROPIC_API_KEY;
        if (!apiKey) return { ok: false, message: MISSING_KEY_MESSAGE };
        provider = createAnthropicProvider({ apiKey });
      }
      const outcome = await runAgent({
        prompt: query.prompt,
        // The query schema checks the outline of each message; the blocks inside are the
        // transcript this runner produced earlier, handed back unchanged by the session.
        history: query.history as ModelMessage[] | undefined,
        provider,
        model: query.model ?? defaultModel(),
        systemPrompt: query.systemPrompt,
        maxTurns: query.maxTurns,
        // A query that names no mode: Claude Code's default when someone can approve; otherwise
        // (headless) every call runs, as before permission checks, except what a deny or ask rule
        // or a hook refuses.
        permissionMode: query.permissionMode ?? (ctx.requestApproval ? "default" : "bypassPermissions"),
        ...(ctx.requestApproval && { approve: ctx.requestApproval }),
        steering: ctx.steering,
        ...(query.effort && { effort: query.effort }),
        cwd: query.cwd ? resolve(ctx.workspace, query.cwd) : ctx.workspace,
        signal: ctx.signal,
        emit: ctx.emit,
      });
      const transcript: TranscriptMessage[] = outcome.transcript;
      switch (outcome.stopReason) {
        case "end_turn":
          return { ok: true, result: outcome.result, usage: outcome.usage, transcript, turns: outcome.turns, model: outcome.model };
        case "aborted":
          return { ok: false, message: "cancelled", transcript };
        case "max_turns":
          return { ok: false, message: outcome.errorMessage ?? "the run reached its maximum number of turns", transcript };
        default:
          return { ok: false, message: outcome.errorMessage ?? "the agent run failed", transcript };
      }
    },
  };
}
