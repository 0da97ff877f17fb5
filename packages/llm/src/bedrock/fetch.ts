// The fetch the Anthropic SDK is given for Claude on Amazon Bedrock: the SDK builds a Messages
// request as for Anthropic's API, and this sends it where Bedrock serves it. The model moves from
// the body to the path ({base}/model/{modelId}/invoke-with-response-stream, or /invoke), the body
// names Bedrock's API version, and a Bedrock API key or an AWS signature replaces the SDK's
// credential. Bedrock streams the reply as AWS event-stream frames, each carrying one of the
// Messages API's events: they are turned back into that API's SSE text, so retries, errors, usage
// and thinking are the Anthropic provider's own.
import { type BedrockAuth, bedrockAuth } from "../aws/credentials.ts";
import { type EventStreamMessage, eventStreamDecoder } from "../aws/event-stream.ts";
import { signatureHeaders } from "../aws/sigv4.ts";
import type { BedrockSettings } from "./settings.ts";
import { headersWithoutCredential, messagesRequest, type SdkFetch } from "../cloud-request.ts";
import { leadingText } from "@harness/protocol/leading-text";
import type { EnvLike } from "../settings.ts";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";
const MAX_ERROR_BYTES = 64 * 1024;

/** A fetch for the SDK client whose baseURL is `settings.baseURL`. A request it cannot send (not
 * the Messages endpoint, no model in the body) rejects with an Error saying so; credentials that
 * cannot be found reject with an AwsCredentialsError. `refresh`, when given, renews what `auth`
 * finds: when Bedrock says the keys expired, it runs and the request goes once more. */
export function bedrockFetch(settings: BedrockSettings, env: EnvLike, inner: SdkFetch, auth: (env: EnvLike) => Promise<BedrockAuth> = bedrockAuth, refresh?: () => Promise<void>): SdkFetch {
  return async (input, init = {}) => {
    const request = bedrockRequest(settings, input, init.body);
    // A URL reads "." and ".." as steps along the path: the request would go elsewhere than the
    // model's route. Refused as Bedrock refuses a bad request, so that it is said and not retried.
    if (request.model === "." || request.model === "..") {
      const message = `model id ${JSON.stringify(request.model)} cannot be sent to Amazon Bedrock: name a Bedrock model id, inference profile or ARN`;
      return new Response(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }), { status: 400, headers: { "content-type": "application/json" } });
    }
    // The body is read here, through web streams: the socket is not handed over (net/socket-events.ts).
    const { onEventStream: _socket, ...rest } = init;
    const send = async () => {
      const headers = headersWithoutCredential(init);
      headers.set("accept", request.streaming ? "application/vnd.amazon.eventstream" : "application/json");
      if (!settings.skipAuth) {
        const credentials = await auth(env);
        if ("bearer" in credentials) headers.set("authorization", `Bearer ${credentials.bearer}`);
        else for (const [name, value] of Object.entries(signatureHeaders("POST", new URL(request.url), request.body, credentials.keys, { region: settings.region, service: "bedrock" }))) headers.set(name, value);
      }
      return inner(request.url, { ...rest, headers, body: request.body });
    };
    let response = await send();
    if (refresh && !settings.skipAuth && expired(response)) {
      void response.body?.cancel().catch(() => {});
      await refresh();
      response = await send();
    }
    return messagesResponse(response);
  };
}

/** Whether Bedrock refused the request's keys as expired (or no longer known, as after a rotation):
 * keys found afresh may serve. */
function expired(response: Response): boolean {
  const exception = (response.headers.get("x-amzn-errortype") ?? "").split(":")[0].trim().toLowerCase();
  return response.status === 403 && (exception === "expiredtokenexception" || exception === "unrecognizedclientexception");
}

/** Pure: the Bedrock URL and body for the SDK's request to `sdkUrl` with `body`. Model ids (a
 * Bedrock id, an inference profile, an ARN) go in the path as given, percent-encoded. */
export function bedrockRequest(settings: BedrockSettings, sdkUrl: string | URL | Request, body: unknown): { url: string; body: string; streaming: boolean; model: string } {
  const { model, rest: { stream, ...rest } } = messagesRequest("Amazon Bedrock", sdkUrl, body);
  const streaming = stream === true;
  return {
    url: `${settings.baseURL}/model/${encodeURIComponent(model)}/${streaming ? "invoke-with-response-stream" : "invoke"}`,
    body: JSON.stringify({ anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest }),
    streaming,
    model,
  };
}

/** Bedrock's exceptions as the Messages API's error types, and the HTTP status each answers with. */
const EXCEPTIONS: Readonly<Record<string, { status: number; type: string }>> = {
  throttlingexception: { status: 429, type: "rate_limit_error" },
  serviceunavailableexception: { status: 503, type: "overloaded_error" },
  internalserverexception: { status: 500, type: "api_error" },
  modelstreamerrorexception: { status: 500, type: "api_error" },
  modeltimeoutexception: { status: 408, type: "api_error" },
  validationexception: { status: 400, type: "invalid_request_error" },
  accessdeniedexception: { status: 403, type: "permission_error" },
  unrecognizedclientexception: { status: 403, type: "authentication_error" },
  expiredtokenexception: { status: 403, type: "authentication_error" },
  resourcenotfoundexception: { status: 404, type: "not_found_error" },
};

/** The Messages API's error body for Bedrock's `exception` ("ThrottlingException", or with its
 * namespace after a colon) with `message`. */
function errorBody(exception: string, message: string, fallbackType: string): string {
  const name = exception.split(":")[0].trim();
  const type = EXCEPTIONS[name.toLowerCase()]?.type ?? fallbackType;
  return JSON.stringify({ type: "error", error: { type, message: name ? `${name}: ${message}` : message } });
}

function messageOf(payload: string): string {
  try {
    const json = JSON.parse(payload) as { message?: unknown; Message?: unknown };
    const message = json.message ?? json.Message;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: the text as it is.
  }
  return payload.trim() || "no message";
}

/** Bedrock's answer as the Messages API's: an error in its error body, an event stream as SSE.
 * Anything else (a whole message, a page from a proxy) is left as it is. */
async function messagesResponse(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  if (!response.ok) {
    // Enough for any message of Bedrock's or a proxy's page; the rest is not read.
    const text = await leadingText(response, MAX_ERROR_BYTES).then((read) => read.text).catch(() => "");
    const exception = response.headers.get("x-amzn-errortype") ?? "";
    headers.set("content-type", "application/json");
    // An answer that is not Bedrock's own (a proxy's page) keeps its words.
    if (!exception && !/^\s*\{/.test(text)) return new Response(text, { status: response.status, headers });
    return new Response(errorBody(exception, messageOf(text), "api_error"), { status: response.status, headers });
  }
  if (!/^application\/vnd\.amazon\.eventstream\b/i.test(headers.get("content-type") ?? "") || !response.body) return response;
  const reader = response.body.getReader();
  const decoder = eventStreamDecoder();
  // The first frames are awaited: an exception before any event is the request's failure, answered
  // with its status (a throttlingException is then a 429, retried as one).
  let first: EventStreamMessage[] = [];
  // A body broken before its first frame is a broken stream, as it would be after it.
  let broken: { error: unknown } | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      first = decoder.push(value);
      if (first.length > 0) break;
    }
  } catch (error) {
    broken = { error };
  }
  const exception = first[0] === undefined ? undefined : exceptionOf(first[0]);
  if (exception) {
    void reader.cancel().catch(() => {});
    const status = EXCEPTIONS[exception.name.toLowerCase()]?.status ?? 500;
    headers.set("content-type", "application/json");
    return new Response(errorBody(exception.name, exception.message, "api_error"), { status, headers });
  }
  headers.set("content-type", "text/event-stream; charset=utf-8");
  return new Response(sseStream(reader, decoder, first, broken), { status: response.status, headers });
}

/** The SSE text of the frames `reader` brings (after `first`, decoded already, or `broken`). A
 * damaged frame errors the stream with an EventStreamError. */
function sseStream(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  decoder: ReturnType<typeof eventStreamDecoder>,
  first: EventStreamMessage[],
  broken: { error: unknown } | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let waiting = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (broken) throw broken.error;
      for (;;) {
        const text = waiting.map(sseEvent).join("");
        waiting = [];
        if (text) {
          controller.enqueue(encoder.encode(text));
          return;
        }
        const { done, value } = await reader.read();
        if (done) {
          decoder.finish();
          controller.close();
          return;
        }
        waiting = decoder.push(value);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function exceptionOf(message: EventStreamMessage): { name: string; message: string } | undefined {
  const kind = message.headers[":message-type"];
  if (kind !== "exception" && kind !== "error") return undefined;
  const name = message.headers[":exception-type"] ?? message.headers[":error-code"];
  const said = message.headers[":error-message"];
  const payload = Buffer.from(message.payload).toString("utf8");
  return { name: typeof name === "string" ? name : "", message: typeof said === "string" && said ? said : messageOf(payload) };
}

/** One frame as SSE: a chunk's Messages event, an exception as an `error` event, other events
 * (none that carry the reply) as nothing. */
function sseEvent(message: EventStreamMessage): string {
  const exception = exceptionOf(message);
  if (exception) return `event: error\ndata: ${errorBody(exception.name, exception.message, "api_error")}\n\n`;
  if (message.headers[":event-type"] !== "chunk") return "";
  const payload = Buffer.from(message.payload).toString("utf8");
  let event: unknown;
  try {
    const { bytes } = JSON.parse(payload) as { bytes?: unknown };
    if (typeof bytes !== "string") throw new Error("no bytes");
    event = JSON.parse(Buffer.from(bytes, "base64").toString("utf8"));
  } catch {
    throw new SyntaxError(`Amazon Bedrock sent a chunk that is not a base64 Messages event: ${payload.slice(0, 200)}`);
  }
  const type = (event as { type?: unknown } | null)?.type;
  if (typeof type !== "string") throw new SyntaxError(`Amazon Bedrock sent a chunk whose event has no type: ${payload.slice(0, 200)}`);
  return `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
}
