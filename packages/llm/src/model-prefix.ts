// The provider family a model id names, by its prefix: "anthropic/<id>" and bare ids are
// Anthropic's. Imports nothing but the Vertex and Bedrock switches, so that a caller can ask before
// it loads any provider.
import { bedrockEnabled } from "./bedrock/settings.ts";
import { vertexEnabled } from "./vertex/settings.ts";

/** The prefix of `model` ("anthropic" for a bare id) and the id after it; the prefix is not checked. */
export function splitModelId(model: string): { prefix: string; rest: string } {
  const id = model.trim();
  const slash = id.indexOf("/");
  return slash === -1 ? { prefix: "anthropic", rest: id } : { prefix: id.slice(0, slash), rest: id.slice(slash + 1) };
}

/** What a run of an Anthropic model says when it has no credentials. */
export const MISSING_ANTHROPIC_KEY = "ANTHROPIC_API_KEY is not set; export your Anthropic API key (or ANTHROPIC_AUTH_TOKEN) to use Anthropic models";

/** Whether a run of an Anthropic model has credentials: a key, or a bearer token; or needs none of
 * Anthropic's, Claude being served by Vertex AI (CLAUDE_CODE_USE_VERTEX) with Google's or by Amazon
 * Bedrock (CLAUDE_CODE_USE_BEDROCK) with AWS's. */
export function hasAnthropicCredentials(apiKey: string | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(apiKey || env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN) || vertexEnabled(env) || bedrockEnabled(env);
}

/** Whether the Anthropic API serves `model` (and so needs ANTHROPIC_API_KEY). */
export function servedByAnthropic(model: string): boolean {
  return splitModelId(model).prefix === "anthropic";
}
