// Whether model credentials work: the key a request gives, else the one the server's runs use, put
// to the provider that serves the runs' model (HARNESS_MODEL, else the default) with its cheapest
// request: Anthropic's count_tokens, the OpenAI-compatible model list. The request goes out as a
// run's would (fetchFor: its proxy and TLS variables). No key is ever part of the answer.
import { bedrockEnabled, defaultModel, fetchFor, MISSING_ANTHROPIC_KEY, OPENAI_DEFAULT_BASE_URL, routeModel, vertexEnabled } from "@harness/llm";
import { shownURL } from "@harness/llm/shown-url";
import { ApiError } from "./errors.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** How long the provider has to answer. */
export const CHECK_TIMEOUT_MS = 10_000;

/** Why credentials are not valid: none to check, refused by the provider, the provider out of
 * reach or too slow, or an answer that says nothing of the key (a wrong address, an outage). */
export type CheckFailure = "missing" | "refused" | "unreachable" | "timeout" | "provider_error";

export type CredentialsAnswer = {
  valid: boolean;
  /** Keys are never stored over the API: the server's come from its environment. */
  stored: false;
  error?: string;
  /** Beyond the spec: who was asked, where, whose key, and the failure as a code. */
  provider: "anthropic" | "openai" | "ollama";
  base_url: string;
  model: string;
  key_source: "request" | "server";
  reason?: CheckFailure;
};

const OPERATION = "harnesses.validateCredentials";
const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/** Checks `apiKey` (the server's own when undefined) with the provider of the runs' model. */
export async function checkCredentials(env: Env, apiKey: string | undefined): Promise<CredentialsAnswer> {
  const model = defaultModel(env);
  const route = routeModel(model, apiKey === undefined ? env : { ...env, OPENAI_API_KEY: apiKey });
  if (!route.ok) throw new ApiError(422, "configuration_invalid", `the server's runs cannot use their model: ${route.error}`, OPERATION);
  const keySource = apiKey === undefined ? "server" : "request";
  if (route.prefix === "anthropic") {
    const cloud = bedrockEnabled(env) ? "Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK)" : vertexEnabled(env) ? "Vertex AI (CLAUDE_CODE_USE_VERTEX)" : undefined;
    if (cloud !== undefined) throw new ApiError(501, "not_implemented", `the server's runs use ${cloud}, whose cloud credentials are not checked here: \`harness doctor\` on the server checks them`, OPERATION);
    const base = (env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, "");
    const answer = { stored: false as const, provider: "anthropic" as const, base_url: shownURL(base), model: route.model, key_source: keySource } as const;
    const key = apiKey ?? env.ANTHROPIC_API_KEY?.trim();
    const token = apiKey === undefined ? env.ANTHROPIC_AUTH_TOKEN?.trim() : undefined;
    if (!key && !token) {
      return { ...answer, valid: false, reason: "missing", error: `${MISSING_ANTHROPIC_KEY} (a run may still get a key from the settings' apiKeyHelper, which is not run for this check)` };
    }
    const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": "2023-06-01", ...(key ? { "x-api-key": key } : { authorization: `Bearer ${token}` }) };
    const body = JSON.stringify({ model: route.model, messages: [{ role: "user", content: "ping" }] });
    return { ...answer, ...(await ask(env, `${base}/v1/messages/count_tokens`, { method: "POST", headers, body }, "Anthropic", key || token)) };
  }
  const ollama = route.prefix === "ollama";
  const base = (route.options.baseURL || env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const answer = { stored: false as const, provider: route.prefix, base_url: shownURL(base), model: route.model, key_source: keySource } as const;
  // Ollama takes no key: what can be checked is that it answers.
  const key = ollama ? undefined : (apiKey ?? env.OPENAI_API_KEY?.trim());
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return { ...answer, ...(await ask(env, `${base}/models`, { method: "GET", headers }, ollama ? "Ollama" : "the OpenAI-compatible API", key)) };
}

/** The provider's verdict on one request. */
async function ask(env: Env, url: string, init: RequestInit, who: string, key: string | undefined): Promise<{ valid: boolean; error?: string; reason?: CheckFailure }> {
  const fetch = fetchFor(env as Record<string, string>);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError" || name === "AbortError") return { valid: false, reason: "timeout", error: `${who} did not answer within ${CHECK_TIMEOUT_MS / 1000} s` };
    return { valid: false, reason: "unreachable", error: `${who} could not be reached at ${shownURL(url)}: ${causeOf(error)}` };
  }
  const said = hideKey(await providerMessage(response), key);
  if (response.ok) return { valid: true };
  if (response.status === 401 || response.status === 403) {
    return { valid: false, reason: "refused", error: `${who} refused the key (${response.status})${said ? `: ${said}` : ""}` };
  }
  return { valid: false, reason: "provider_error", error: `${who} answered ${response.status}${said ? `: ${said}` : ""}, which says nothing of the key (check the base URL and the model)` };
}

/** The message of a provider's error body, short; the body is read whole either way. */
async function providerMessage(response: Response): Promise<string | undefined> {
  const text = await response.text().catch(() => "");
  if (response.ok) return undefined;
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } | string }).error;
    const said = typeof message === "string" ? message : message?.message;
    if (typeof said === "string") return said.slice(0, 300);
  } catch {
    // Not JSON: the status says enough.
  }
  return undefined;
}

/** `text` without the key, nor what looks like one (providers quote part of a refused key). */
function hideKey(text: string | undefined, key: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const hidden = key ? text.split(key).join("***") : text;
  return hidden.replace(/\b(?:sk|key)-[\w*.-]+/gi, "***");
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
