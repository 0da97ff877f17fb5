// A chat-completions event stream read from the socket (net/socket-events.ts), with the same meaning as
// the OpenAI SDK's Stream: `data: [DONE]` ends the reply, a chunk that carries an `error` (or an
// `error` event) throws the SDK's APIError (so failures are classified alike), and data that is not
// JSON is an error.
import type { IncomingMessage } from "node:http";
import type OpenAI from "openai";
import { openAISdk } from "./sdk.ts";
import { parseJson, socketEvents } from "../net/socket-events.ts";

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** The chunks of `res`, a 2xx text/event-stream answer of a chat-completions endpoint (see
 * socketEvents). */
export function openAIEvents(res: IncomingMessage, headers: Headers, signal?: AbortSignal, options: { endGraceMs?: number; onData?: () => void; onDone?: () => void } = {}): AsyncIterable<Chunk> {
  const { onDone, ...rest } = options;
  return socketEvents<Chunk>(res, signal, ({ event, data }) => {
    if (data === "[DONE]") {
      onDone?.();
      return { end: true };
    }
    const parsed = parseJson(data);
    if (parsed === undefined) return { error: new SyntaxError("Error reading response: malformed server-sent event JSON.") };
    const body = parsed as { error?: unknown } | null;
    const { APIError } = openAISdk();
    if (event === "error") return { error: new APIError(undefined, (body?.error ?? body) as object, undefined, headers) };
    if (body?.error) return { error: new APIError(undefined, body.error as object, undefined, headers) };
    if (typeof parsed !== "object" || parsed === null) return { error: new SyntaxError(`Error reading response: a chunk that is not a JSON object: ${data.slice(0, 200)}`) };
    return { event: parsed as Chunk };
  }, { takeUnfinishedLast: true, ...rest });
}
