// Which provider serves a model id: "anthropic/<id>" and bare ids go to Anthropic, "openai/<id>"
// to the OpenAI-compatible endpoint of OPENAI_BASE_URL, "ollama/<id>" to a local Ollama server.
import { type AnthropicProviderOptions, createAnthropicProvider } from "./anthropic/provider.ts";
import { createOpenAIProvider, isOpenAIApi, OPENAI_DEFAULT_BASE_URL, type OpenAIProviderOptions } from "./openai/provider.ts";
import { splitModelId } from "./model-prefix.ts";
import type { EnvLike } from "./settings.ts";
import type { Provider } from "./types.ts";

export const MODEL_PREFIXES = ["anthropic", "openai", "ollama"] as const;
export type ModelPrefix = (typeof MODEL_PREFIXES)[number];

export const OLLAMA_DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1";

/** Options per provider family, over what the environment says. */
export type ProviderOverrides = {
  anthropic?: AnthropicProviderOptions;
  openai?: OpenAIProviderOptions;
  ollama?: OpenAIProviderOptions;
};

/** Where a model id goes, before any client is made. `model` is the id to put in requests: the
 * given id without its prefix. */
export type ModelRoute =
  | { ok: true; prefix: "anthropic"; model: string; options: AnthropicProviderOptions }
  | { ok: true; prefix: "openai" | "ollama"; model: string; options: OpenAIProviderOptions }
  | { ok: false; error: string };

export type RoutedModel = { ok: true; provider: Provider; model: string; prefix: ModelPrefix } | { ok: false; error: string };

/** Pure: the provider family and options for a model id, or an error value (unknown prefix, empty
 * id, OpenAI's own API without a key). */
export function routeModel(model: string, env: EnvLike = process.env, overrides: ProviderOverrides = {}): ModelRoute {
  const { prefix, rest } = splitModelId(model);
  if (!isPrefix(prefix)) {
    return { ok: false, error: `unknown model provider "${prefix}" in "${model}": use ${MODEL_PREFIXES.map((p) => `${p}/<model>`).join(", ")}, or a bare Claude model id` };
  }
  if (rest === "") return { ok: false, error: `no model id in "${model}": expected ${prefix}/<model>` };
  switch (prefix) {
    case "anthropic":
      return { ok: true, prefix, model: rest, options: overrides.anthropic ?? {} };
    case "openai": {
      const options = overrides.openai ?? {};
      const baseURL = options.baseURL || env.OPENAI_BASE_URL || OPENAI_DEFAULT_BASE_URL;
      if (!(options.apiKey || env.OPENAI_API_KEY) && isOpenAIApi(baseURL)) {
        return { ok: false, error: `cannot use model "${model}": OPENAI_API_KEY is not set (set OPENAI_BASE_URL too for an OpenAI-compatible server that needs no key)` };
      }
      return { ok: true, prefix, model: rest, options };
    }
    case "ollama": {
      const options = overrides.ollama ?? {};
      const baseURL = withV1(options.baseURL || env.OLLAMA_BASE_URL || OLLAMA_DEFAULT_BASE_URL);
      // Ollama ignores the key; OPENAI_API_KEY belongs to another server and is not sent here.
      return { ok: true, prefix, model: rest, options: { name: "ollama", ...options, baseURL, apiKey: options.apiKey || "ollama" } };
    }
  }
}

/** Never throws: an unknown prefix, an empty id or a configuration error becomes `{ ok: false, error }`. */
export function createProviderForModel(model: string, env: EnvLike = process.env, overrides: ProviderOverrides = {}): RoutedModel {
  const route = routeModel(model, env, overrides);
  if (!route.ok) return route;
  try {
    const provider = route.prefix === "anthropic" ? createAnthropicProvider(route.options, env) : createOpenAIProvider(route.options, env);
    return { ok: true, provider, model: route.model, prefix: route.prefix };
  } catch (error) {
    return { ok: false, error: `cannot use model "${model}": ${error instanceof Error ? error.message : String(error)}` };
  }
}

function isPrefix(value: string): value is ModelPrefix {
  return (MODEL_PREFIXES as readonly string[]).includes(value);
}

/** "http://host:11434" → "http://host:11434/v1": Ollama's OpenAI-compatible API lives under /v1. */
function withV1(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    if (url.pathname === "/" || url.pathname === "") return `${url.origin}/v1`;
  } catch {
    // Not a URL: the SDK reports it when the first request is made.
  }
  return baseURL;
}
