// Anthropic's event stream read from the socket (net/socket-events.ts), with the same meaning as the
// SDK's Stream: `ping` and unnamed events are skipped, an `error` event throws the SDK's APIError (so
// failures are classified alike), any other event's data is parsed as JSON.
import type { IncomingMessage } from "node:http";
import type Anthropic from "@anthropic-ai/sdk";
import { anthropicSdk } from "./sdk.ts";
import { clip } from "../retry/policy.ts";
import { parseJson, socketEvents } from "../net/socket-events.ts";

type RawEvent = Anthropic.RawMessageStreamEvent;

/** The events of `res`, a 2xx text/event-stream answer of the Messages API (see socketEvents). An
 * event whose data is not a JSON object fails the stream. */
export function anthropicEvents(res: IncomingMessage, headers: Headers, signal?: AbortSignal, onData?: () => void): AsyncIterable<RawEvent> {
  return socketEvents<RawEvent>(res, signal, ({ event, data }) => {
    // The parser names an unnamed event "message", which the API never sends: skipped, as the SDK does.
    if (event === "ping" || event === "message") return undefined;
    if (event === "error") {
      const body = parseJson(data) ?? data;
      const type = typeof body === "object" && body !== null ? (body as { error?: { type?: unknown } }).error?.type : undefined;
      const { APIError } = anthropicSdk();
      const named = (typeof type === "string" ? type : undefined) as ConstructorParameters<typeof APIError>[4];
      return { error: new APIError(undefined, body as object, undefined, headers, named) };
    }
    if (data === "") return undefined;
    const parsed = parseJson(data);
    // message_stop is the reply's last event: the read ends with it, as with a chat completion's
    // [DONE], rather than waiting for a server that keeps the connection open to close the body.
    if (typeof parsed === "object" && parsed !== null) return event === "message_stop" ? { event: parsed as RawEvent, end: true } : { event: parsed as RawEvent };
    return { error: new SyntaxError(`the Anthropic API sent a ${event} event whose data is not a JSON object: ${clip(data)}`) };
  }, { onData });
}
