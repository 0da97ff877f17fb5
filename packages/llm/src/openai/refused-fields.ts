// Fields some compatible servers (and proxies in front of them) refuse with a 400 (or, validating
// strictly, a 422) that names the field: `stream_options` (which asks for the usage chunk), and
// one or the other of `max_tokens` and `max_completion_tokens` (OpenAI's reasoning models take only
// the second; older servers know only the first). The request goes again without the field, or
// with the other, once each, and the provider keeps to what it learned. Without stream_options
// the replies carry no usage, which the run reports as unknown.
import type OpenAI from "openai";
import { openAISdk } from "./sdk.ts";

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type TokensField = "max_tokens" | "max_completion_tokens";

/** How servers say they do not take a field: OpenAI's "Unsupported parameter: … Use … instead",
 * Azure's "Unrecognized request argument", serde's "unknown field", pydantic's "Extra inputs are
 * not permitted". */
const REFUSED_FIELD = /unsupported|not supported|unrecogni[sz]ed|unknown|not permitted|not allowed|extra (?:fields|inputs)|instead/i;

/** What one provider has learned about its server, shared by all its requests. */
export type ServerQuirks = { refusesStreamOptions: boolean; tokensField?: TokensField };

/** `body` as this server takes it. */
export function bodyFor(body: Params, quirks: ServerQuirks): Params {
  let sent = body;
  if (quirks.refusesStreamOptions && sent.stream_options !== undefined) {
    const { stream_options: _, ...rest } = sent;
    sent = rest;
  }
  const refused = quirks.tokensField === "max_tokens" ? "max_completion_tokens" : "max_tokens";
  if (quirks.tokensField && sent[refused] !== undefined) {
    const { [refused]: limit, ...rest } = sent;
    sent = { ...rest, [quirks.tokensField]: limit };
  }
  return sent;
}

/** Whether `error` refuses a field of `sent` that can be done without or swapped; if so, `quirks`
 * learn it, and the request is worth sending again. */
export function learnRefusal(error: unknown, sent: Params, quirks: ServerQuirks): boolean {
  const { APIError } = openAISdk();
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return false;
  const text = `${error.message} ${JSON.stringify(error.error ?? "")}`;
  if (!quirks.refusesStreamOptions && sent.stream_options !== undefined && /stream_options/i.test(text)) {
    quirks.refusesStreamOptions = true;
    return true;
  }
  // A message that names the field for its value ("'max_tokens' … is too large: 40000") is about
  // the limit, not the field: sent again with the other, it would fail alike, or go with no limit
  // to a server that ignores a field it does not know.
  if (quirks.tokensField !== undefined || !REFUSED_FIELD.test(text)) return false;
  for (const [field, other] of [["max_completion_tokens", "max_tokens"], ["max_tokens", "max_completion_tokens"]] as const) {
    if (sent[field] === undefined || !new RegExp(`\\b${field}\\b`).test(text)) continue;
    quirks.tokensField = other;
    return true;
  }
  return false;
}
