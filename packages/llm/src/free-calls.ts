// Which model calls cost nothing: those of a model Ollama runs on this machine.
import { isLoopbackURL } from "./net/base-urls.ts";

/** Whether a call of `model` to the OpenAI-compatible provider `provider` at `baseURL` is free:
 * Ollama on this machine, running the model there (its "-cloud" models run on ollama.com). Any
 * other compatible server, on this machine or not, may be a gateway to a paid API (LiteLLM,
 * OpenRouter): the price of its calls is not known. */
export function servedFree(provider: string, baseURL: string, model: string): boolean {
  return provider === "ollama" && isLoopbackURL(baseURL) && !/[-:]cloud$/.test(model);
}
