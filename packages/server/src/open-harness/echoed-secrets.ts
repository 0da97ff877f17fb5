// Texts this API shows with their secrets hidden ("***", the logs' rule) can also be written back
// through it (a memory block, an agent's prompt, a hook's command). A client that reads one, edits
// it and sends it back would put "***" where the secrets were: such a write is refused rather than
// done.
import { ApiError } from "./errors.ts";

const MARK = "***";

/** 409 when `current` (the file's text as it is) holds something `hide` hides and one of `sent`
 * holds the mark it hides it with: the text most likely came from this API, secrets hidden. */
export function refuseEchoedSecrets(current: string, sent: (string | undefined)[], hide: (text: string) => string, what: string, operation: string): void {
  if (!sent.some((text) => text?.includes(MARK))) return;
  if (hide(current) === current) return;
  throw new ApiError(
    409,
    "conflict",
    `${what} holds secret values, which this API shows as ${MARK}, and the text sent has ${MARK} in it: writing it would replace them. Send the text with the values themselves (or edit the file with the files API)`,
    operation,
  );
}
