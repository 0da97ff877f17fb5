// The settings files' `env` as the harness takes it for itself, rather than for the commands it
// starts: every variable, except that where the model is reached and with which credentials, and
// how the run's own requests go out (the proxies, the CA file trusted, the client certificate
// presented), only the user's, the run's own and the managed settings say. A repository's settings
// must neither send the key elsewhere nor route the model's requests, WebFetch's, http hooks' and
// remote MCP servers' (their OAuth tokens included) through a proxy of its own trusting a CA of
// its own. Runs (RunSetup.harnessEnv) and the commands that make requests outside a run (`harness
// mcp login`, `harness mcp list`) read it here, so that both hold to the one rule.
import { comesWithRepository, type SettingsSource } from "../../settings/types.ts";

type Env = Readonly<Record<string, string | undefined>>;

const TRUSTED_ONLY = /^(?:(?:ANTHROPIC|OPENAI|OLLAMA)_(?:BASE_URL|API_KEY|AUTH_TOKEN)|(?:HTTPS?|ALL|NO)_PROXY|NODE_EXTRA_CA_CERTS|CLAUDE_CODE_CLIENT_(?:CERT|KEY|KEY_PASSPHRASE))$/i;

/** The variables of the settings' `env` the harness takes, `sources` in order of precedence
 * (lowest first, as loadSettings gives them). */
export function harnessEnvOverrides(sources: readonly SettingsSource[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of sources) {
    const trusted = !comesWithRepository(source.scope);
    for (const [name, value] of Object.entries(source.settings.env ?? {})) if (trusted || !TRUSTED_ONLY.test(name)) env[name] = value;
  }
  return env;
}

/** `base` (the process's or the run's environment) with the settings' `env` of `sources` over it
 * as the harness takes it. */
export function harnessEnvOf(base: Env, sources: readonly SettingsSource[]): Record<string, string> {
  return environmentOf(base, harnessEnvOverrides(sources));
}

/** `base` without unset variables, with `overrides` laid over it. */
export function environmentOf(base: Env, overrides: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  if (overrides) Object.assign(env, overrides);
  return env;
}
