// The model a run here would use, chosen as a run chooses it, whether credentials for it are set
// (named, never shown), and one small request to it through the provider a run makes: the same
// fetch (proxies, CA file, client certificate), the same failures in the same words.
import { createProviderForModel, networkProblem, routeModel } from "@harness/llm";
import { bedrockEnabled } from "@harness/llm/bedrock-settings";
import { hasAnthropicCredentials, MISSING_ANTHROPIC_KEY } from "@harness/llm/model-prefix";
import { vertexEnabled } from "@harness/llm/vertex-settings";
import type { ModelErrorInfo, Provider } from "@harness/llm";
import type { RunAgentOptions } from "@harness/agent";
import { trustedApiKeyHelper, withHelperKey } from "@harness/agent/api-key-helper";
import { pickModel } from "@harness/agent/model";
import { withKeyHint } from "@harness/agent/refused-key";
import { type Check, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

/** How long the endpoint has to answer, and an apiKeyHelper to give its key. */
const REQUEST_TIMEOUT_MS = 15_000;

export async function modelChecks(ctx: DoctorContext): Promise<Check[]> {
  const env = ctx.env;
  let options = { prompt: "", cwd: ctx.cwd, env } as RunAgentOptions;
  const pick = pickModel(options, ctx.loaded.settings, ctx.loaded.availableModels);
  if (!pick.ok) return [fail("model", pick.error, "set HARNESS_MODEL or the settings' model to one the settings' availableModels allow")];
  const route = routeModel(pick.model, env);
  if (!route.ok) return [fail("model", route.error, "set HARNESS_MODEL (or the settings' model) to a model a provider serves")];
  const checks: Check[] = [ok("model", `${pick.model}, served by ${serviceOf(route.prefix, env)}`)];

  if (route.prefix === "anthropic" && !hasAnthropicCredentials(undefined, env)) {
    const helper = await trustedApiKeyHelper({ home: ctx.home });
    if (helper === undefined) return [...checks, fail("credentials", MISSING_ANTHROPIC_KEY, "export ANTHROPIC_API_KEY, or set apiKeyHelper in ~/.claude/settings.json")];
    const keyed = await withHelperKey(options, helper, pick.model, ctx.cwd, REQUEST_TIMEOUT_MS);
    if (!keyed.ok) return [...checks, fail("credentials", keyed.error, "mend the apiKeyHelper command, or export ANTHROPIC_API_KEY")];
    options = keyed.options;
    checks.push(ok("credentials", "from the settings' apiKeyHelper"));
  } else {
    checks.push(credentialsCheck(route.prefix, env));
  }

  const network = networkProblem(env);
  if (network !== undefined) return [...checks, fail("network", network, "mend the variable named, in the environment or the settings' env")];
  checks.push(ok("network", networkRoute(env)));

  const anthropic = { ...options.providerOptions?.anthropic, maxRetries: 0 };
  const routed = createProviderForModel(pick.model, env, { anthropic, openai: { maxRetries: 0 }, ollama: { maxRetries: 0 } });
  if (!routed.ok) return [...checks, fail("endpoint", routed.error, "mend the model's settings named above")];
  const answer = await ask(routed.provider, routed.model);
  checks.push(answer.ok ? ok("endpoint", "answers, and takes the credentials") : fail("endpoint", answer.message, remedyFor(answer.error, credentialsNamed(route.prefix, env))));
  return checks;
}

function serviceOf(prefix: "anthropic" | "openai" | "ollama", env: Record<string, string>): string {
  if (prefix === "openai") return `the OpenAI-compatible API at ${env.OPENAI_BASE_URL || "https://api.openai.com/v1"}`;
  if (prefix === "ollama") return `Ollama at ${env.OLLAMA_BASE_URL || "http://127.0.0.1:11434"}`;
  if (bedrockEnabled(env)) return "Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK)";
  if (vertexEnabled(env)) return "Vertex AI (CLAUDE_CODE_USE_VERTEX)";
  return `the Anthropic API at ${env.ANTHROPIC_BASE_URL || "https://api.anthropic.com"}`;
}

/** How a run's requests go out, by the variables that say so (their values may hold passwords). */
function networkRoute(env: Record<string, string>): string {
  const set = (names: string[]) => names.filter((name) => env[name]?.trim() || env[name.toLowerCase()]?.trim());
  const proxies = set(["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]);
  const tls = ["NODE_EXTRA_CA_CERTS", "CLAUDE_CODE_CLIENT_CERT"].filter((name) => env[name]?.trim());
  const route = proxies.length ? `through the proxy of ${proxies.join(", ")}${set(["NO_PROXY"]).length ? " (NO_PROXY excepted)" : ""}` : "direct (no proxy variable set)";
  return tls.length ? `${route}, with ${tls.join(" and ")}` : route;
}

/** Which variable gives the credentials, by name only. */
function credentialsCheck(prefix: "anthropic" | "openai" | "ollama", env: Record<string, string>): Check {
  if (prefix === "ollama") return ok("credentials", "none needed (Ollama)");
  if (prefix === "openai") {
    return env.OPENAI_API_KEY ? ok("credentials", "OPENAI_API_KEY is set") : warn("credentials", "OPENAI_API_KEY is not set", "export OPENAI_API_KEY unless the server at OPENAI_BASE_URL needs no key");
  }
  if (bedrockEnabled(env)) return ok("credentials", "AWS credentials, found when the request is made");
  if (vertexEnabled(env)) return ok("credentials", "Google credentials, found when the request is made");
  return ok("credentials", env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY is set" : "ANTHROPIC_AUTH_TOKEN is set");
}

/** One request for a single token of reply: the cheapest a run's provider makes, and it proves
 * what a run needs (the address, the network, the key, the model). */
async function ask(provider: Provider, model: string): Promise<{ ok: true } | { ok: false; message: string; error?: ModelErrorInfo }> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  for await (const event of provider.stream({ model, messages: [{ role: "user", content: "Reply with OK." }], maxTokens: 1, signal })) {
    if (event.type !== "done") continue;
    if (event.stopReason === "aborted") return { ok: false, message: `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` };
    if (event.stopReason !== "error") return { ok: true };
    return { ok: false, message: withKeyHint(event.errorMessage ?? "the request failed", event.error), ...(event.error && { error: event.error }) };
  }
  return { ok: false, message: "the request ended without an answer" };
}

/** What gives the credentials of a run served by `prefix`, in words for a remedy. */
function credentialsNamed(prefix: "anthropic" | "openai" | "ollama", env: Record<string, string>): string {
  if (prefix !== "anthropic") return "OPENAI_API_KEY";
  if (bedrockEnabled(env)) return "the AWS credentials (as the failure says)";
  if (vertexEnabled(env)) return "the Google credentials (as the failure says)";
  return "ANTHROPIC_API_KEY (or the apiKeyHelper)";
}

function remedyFor(error: ModelErrorInfo | undefined, credentials: string): string {
  switch (error?.kind) {
    case "authentication_failed":
      return `set ${credentials} to ones this endpoint takes`;
    case "model_not_found":
      return "set HARNESS_MODEL (or the settings' model) to a model this endpoint serves";
    case "billing_error":
      return "add credit to the account of this key";
    case "rate_limit":
      return "wait, or use a key with a higher limit";
    default:
      return "check the address (the *_BASE_URL variables), the network, HTTPS_PROXY and NODE_EXTRA_CA_CERTS";
  }
}
