// What the server's log may not show (hidden-secrets.ts): the credentials and query of a URL, the
// server's own tokens, the secrets of its environment by name and secrets in a shape that says so,
// whatever line they come in (a runner's last output, an error).
import { secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";

/** `log`, each of whose lines goes out with its secrets, `tokens` and the values of `env` whose
 * names say they are secrets among them, shown as "***" (those shorter than 8 characters are left).
 * The secrets are gathered once, here; `know` adds those learnt later (a token added to the tokens
 * file), which stay hidden for good. */
export function hidingSecrets(
  log: (line: string) => void,
  tokens: Iterable<string | undefined>,
  env: Readonly<Record<string, string | undefined>> = {},
): { log: (line: string) => void; know: (values: Iterable<string | undefined>) => void } {
  const { hide, know } = secretHiding([...tokens, ...secretValuesOf(env)]);
  return { log: (line) => log(hide(line)), know };
}
