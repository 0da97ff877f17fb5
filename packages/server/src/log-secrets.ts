// What the server's log may not show: the credentials and query of a URL (a runner's last output,
// an error that quotes a gateway's URL) and the server's own tokens, whatever line they come in.
import { secretsHidden, withShownURLs } from "@harness/llm/shown-url";

/** `log`, each of whose lines goes out with such URLs shown as shownURL shows them, and `tokens`
 * replaced by "***" (secretsHidden: tokens shorter than 8 characters are left). */
export function hidingSecrets(log: (line: string) => void, tokens: Iterable<string | undefined>): (line: string) => void {
  const hide = secretsHidden(tokens);
  return (line) => log(hide(withShownURLs(line)));
}
