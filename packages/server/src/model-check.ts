// Whether the server's runs can use a model a session's configure names, asked when it is named so
// that the user hears of it at once instead of from the next run's failure.
import { allowedSaid, modelAllowed } from "@harness/agent/available-models";
import { modelsBeforeStart } from "@harness/agent/run-settings";
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

/** modelCheck, then the settings' availableModels, read as a builtin run in the session's workspace
 * reads them (the server's HOME, the managed settings file). Claude Code holds its runs to its own
 * settings, which it reads elsewhere. */
export function sessionModelCheck(env: Env, workspaceOf: (userId: string, sessionId: string) => string) {
  const served = modelCheck(env);
  const backend = defaultBackendName(env);
  return (model: string, where: { userId: string; sessionId: string }): string | undefined | Promise<string | undefined> => {
    const problem = served(model);
    if (problem !== undefined || (backend.ok && backend.name === "claude-code")) return problem;
    return availableModelsProblem(model, workspaceOf(where.userId, where.sessionId), env);
  };
}

async function availableModelsProblem(model: string, workspace: string, env: Env): Promise<string | undefined> {
  // Settings that cannot be read (managed settings stop every run, which says why) are for the run
  // to report: the model is not to blame.
  const read = await modelsBeforeStart({ cwd: workspace, ...(env.HOME && { home: env.HOME }) }).catch(() => ({ error: "unread" }));
  if ("error" in read || read.allowed === undefined) return undefined;
  return modelAllowed(model, read.allowed, env) ? undefined : allowedSaid(read.allowed);
}
