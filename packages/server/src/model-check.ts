// Whether the server's runs can use a model a session's configure names, asked when it is named so
// that the user hears of it at once instead of from the next run's failure.
import { routeModel } from "@harness/llm";
import { defaultBackendName } from "@harness/runner/backend-names";

type Env = Readonly<Record<string, string | undefined>>;

/** The check for a server with this environment: a provider it does not know, an id missing after
 * the prefix, OpenAI's API without its key, a model of another provider than Anthropic when runs
 * go to Claude Code. A Claude model without ANTHROPIC_API_KEY passes: an apiKeyHelper of the
 * runners' settings may make the key, and runs say so when none does. */
export function modelCheck(env: Env): (model: string) => string | undefined {
  const backend = defaultBackendName(env);
  return (model) => {
    const routed = routeModel(model, env);
    if (!routed.ok) return routed.error;
    if (backend.ok && backend.name === "claude-code" && routed.prefix !== "anthropic") {
      return "this server runs Claude Code, which runs Anthropic's models only: name a Claude model (claude-…, anthropic/claude-…, or an alias such as sonnet)";
    }
    return undefined;
  };
}
