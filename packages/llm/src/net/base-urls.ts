// The model endpoints a user may point the providers at. A value the providers cannot use would
// otherwise surface only when a run calls the model, as the SDK's bare "Invalid URL", or as
// connection retries for a value without a scheme ("localhost:8080").

/** The variables that name a provider's endpoint. */
export const BASE_URL_VARIABLES = ["ANTHROPIC_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL", "OPENAI_BASE_URL", "OLLAMA_BASE_URL"] as const;

/** What is wrong with the endpoint variables set in `env`, one line each naming the variable. */
export function baseUrlProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  for (const name of BASE_URL_VARIABLES) {
    const value = env[name];
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      // Said below.
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      problems.push(`${name} must be an http(s) URL such as http://127.0.0.1:8080, got "${value}"`);
    }
  }
  return problems;
}

/** Whether `baseURL` names this machine (localhost, 127.x.x.x, ::1): a model served there (Ollama,
 * llama.cpp, LM Studio…) is charged for by nobody. A server elsewhere on the network may be a paid
 * gateway, and is not taken as free. */
export function isLoopbackURL(baseURL: string): boolean {
  let host: string;
  try {
    host = new URL(baseURL).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
