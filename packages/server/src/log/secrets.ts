// What the server's log may not show (hidden-secrets.ts): the credentials and query of a URL, the
// server's own tokens, the secrets of its environment by name and secrets in a shape that says so,
// whatever line they come in (a runner's last output, an error).
import { secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";
import type { LogDetail, ServerLog } from "./writer.ts";

/** `log`, each of whose lines (its text, and each text of its detail: what the JSON form shows, which
 * is hidden before it is quoted, as a secret with a quote or a backslash in it is no longer itself
 * once quoted) goes out with its secrets, `tokens` and the values of `env` whose
 * names say they are secrets among them, shown as "***" (those shorter than 8 characters are left).
 * The secrets are gathered once, here; `know` adds those learnt later (a token added to the tokens
 * file), which stay hidden for good. */
export function hidingSecrets(
  log: ServerLog,
  tokens: Iterable<string | undefined>,
  env: Readonly<Record<string, string | undefined>> = {},
): { log: ServerLog; know: (values: Iterable<string | undefined>) => void } {
  const { hide, know } = secretHiding([...tokens, ...secretValuesOf(env)]);
  const hidden = (detail: LogDetail): LogDetail => Object.fromEntries(Object.entries(detail).map(([name, value]) => [name, typeof value === "string" ? hide(value) : value]));
  return { log: (line, detail) => (detail === undefined ? log(hide(line)) : log(hide(line), hidden(detail))), know };
}
