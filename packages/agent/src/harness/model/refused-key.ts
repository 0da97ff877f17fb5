// A model request the service refused for its credentials, in words that say where the key comes
// from, as Claude Code's "Invalid API key" says what to fix rather than only quoting the service.
import type { ModelErrorInfo } from "@harness/llm";

/** The variables a refused key is read from, by the service that names itself at the start of the
 * failure ("Anthropic API error 401 …"): Vertex AI and Bedrock say their own credentials' words. */
const KEY_SOURCES: readonly (readonly [RegExp, string])[] = [
  [/^Anthropic API error 401\b/, "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or the settings' apiKeyHelper)"],
  [/^OpenAI API error 401\b/, "OPENAI_API_KEY"],
];

/** `message`, with what to check when the service answered 401 to the run's key. */
export function withKeyHint(message: string, error: ModelErrorInfo | undefined): string {
  if (error?.kind !== "authentication_failed") return message;
  const source = KEY_SOURCES.find(([pattern]) => pattern.test(message))?.[1];
  return source ? `${message}; the key was refused: check ${source}` : message;
}
