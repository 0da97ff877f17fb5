// What the server's log may not show: the credentials and query of a URL (a runner's last output,
// an error that quotes a gateway's URL) and the server's own tokens, whatever line they come in.
import { withShownURLs } from "@harness/llm/shown-url";

/** Shorter tokens (a loopback server's, which guards little) are not hidden: hiding them would
 * blot out ordinary words of the log. */
const MIN_HIDDEN_LENGTH = 8;

/** `log`, each of whose lines goes out with such URLs shown as shownURL shows them, and `tokens`
 * replaced by "***". */
export function hidingSecrets(log: (line: string) => void, tokens: Iterable<string | undefined>): (line: string) => void {
  const hidden = [...tokens].filter((token): token is string => token !== undefined && token.length >= MIN_HIDDEN_LENGTH);
  return (line) => log(hidden.reduce((text, token) => text.split(token).join("***"), withShownURLs(line)));
}
