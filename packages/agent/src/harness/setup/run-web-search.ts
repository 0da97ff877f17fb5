// The web search a run's tools get: Claude's server-side search, asked of the small fast model
// (ANTHROPIC_SMALL_FAST_MODEL, else haiku) beside the run's, through the run's provider.
import type { Usage } from "@harness/protocol";
import { resolveHookModel } from "../../subagents/agent-model.ts";
import { claudeWebSearch } from "../../tools/web/claude-web-search.ts";
import type { WebSearchProvider } from "../../tools/state.ts";
import { besideParent } from "../model/model.ts";
import type { RunContext } from "../run-context.ts";

/** Undefined when the run's model is not served by Anthropic's provider (an OpenAI-compatible
 * server has no such search). On Amazon Bedrock the provider refuses the search in words. The
 * model is chosen when a search is made: a configure may have changed the run's. */
export function runWebSearch(ctx: RunContext, record: (model: string, usage: Usage) => void): WebSearchProvider | undefined {
  if (ctx.provider.name !== "anthropic") return undefined;
  return {
    search(query, options) {
      const run = { model: ctx.model, provider: ctx.provider };
      const small = besideParent(ctx.options, resolveHookModel(undefined, run.model, ctx.options.env ?? process.env), run);
      // A small model that cannot be reached, or that another provider serves, gives way to the run's.
      const chosen = "error" in small || small.provider.name !== "anthropic" ? run : small;
      return claudeWebSearch({ ...chosen, record }).search(query, options);
    },
  };
}
