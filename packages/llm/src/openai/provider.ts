// A provider for any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp,
// gateways): the official SDK makes the requests, their streamed chunks are mapped to ModelEvents,
// with the shared retry loop.
import type OpenAI from "openai";
import { type EventStreamInit, fetchFor } from "../net/http-fetch.ts";
import { openAIEvents } from "./events.ts";
import { openEventStream } from "../net/socket-events.ts";
import { openAIRequestFailure, openAIStreamFailure } from "./failure.ts";
import { chatCompletionsRequest, type ChatRequestOptions } from "./request.ts";
import { wholeReply } from "./whole-reply.ts";
import { openAISdk } from "./sdk.ts";
import { applyChunk, createOpenAIStreamState, endWithoutFinishReason, openAIAssistantMessage, openAIStopReason, type OpenAIStreamState } from "./stream-state.ts";
import { type EnvLike, resolveMaxTokens, resolveRetrySettings, type RetrySettings } from "../settings.ts";
import { streamWithRetries, type WireStream } from "../retry/stream-with-retries.ts";
import { failAtOnce } from "../fail-at-once.ts";
import { bodyFor, learnRefusal, type ServerQuirks } from "./refused-fields.ts";
import { shownURL } from "../net/shown-url.ts";
import { servedFree } from "../free-calls.ts";
import type { ModelEvent, ModelRequest, Provider } from "../types.ts";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export type OpenAIProviderOptions = {
  /** Default: OPENAI_API_KEY. A server other than OpenAI's own may need none. */
  apiKey?: string;
  /** Default: OPENAI_BASE_URL, else https://api.openai.com/v1. */
  baseURL?: string;
  /** The provider's name, in events and error messages. Default "openai". */
  name?: string;
  /** Retries after the first attempt. Default: HARNESS_MODEL_RETRIES, else 4. */
  maxRetries?: number;
  /** First backoff delay; doubles with each retry. Default: HARNESS_RETRY_BASE_MS, else 500. */
  retryBaseMs?: number;
  /** A reply stream silent this long is given up on (and retried when nothing was shown).
   * Default: HARNESS_STREAM_IDLE_MS, else 120 s. */
  streamIdleMs?: number;
  /** Output limit when the request names none. Default: none sent (the server's own limit). */
  maxTokens?: number;
  /** The field that carries the output limit. Default: max_completion_tokens for OpenAI's own API
   * (its reasoning models refuse max_tokens), max_tokens for every other server. */
  maxTokensField?: ChatRequestOptions["maxTokensField"];
};

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** `name`: the provider's ("ollama"…), which with `baseURL` says whether its calls are free. */
type Settings = RetrySettings & ChatRequestOptions & { baseURL: string; name: string; label: string };

/** Throws (RangeError) only for malformed options or HARNESS_* variables; stream() never throws.
 * Without an API key for OpenAI's own API every stream ends at once with an error saying so. */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}, env: EnvLike = process.env): Provider {
  const name = options.name || "openai";
  const baseURL = options.baseURL || env.OPENAI_BASE_URL || OPENAI_DEFAULT_BASE_URL;
  const apiKey = options.apiKey || env.OPENAI_API_KEY || undefined;
  const settings: Settings = {
    ...resolveRetrySettings(options, env),
    maxTokensField: options.maxTokensField ?? (isOpenAIApi(baseURL) ? "max_completion_tokens" : "max_tokens"),
    baseURL,
    name,
    label: labelOf(name),
  };
  if (options.maxTokens !== undefined) settings.maxTokens = resolveMaxTokens(options.maxTokens);
  if (!apiKey && isOpenAIApi(baseURL)) {
    const message = `no API key for ${settings.label} at ${shownURL(baseURL)}: set OPENAI_API_KEY (or OPENAI_BASE_URL for a server that needs no key)`;
    return { name, stream: (request) => failAtOnce(message, request) };
  }
  const client = new (openAISdk().default)({
    // Servers without authentication ignore the Authorization header; the SDK insists on a key.
    apiKey: apiKey ?? "no-key",
    baseURL,
    organization: env.OPENAI_ORG_ID ?? null,
    project: env.OPENAI_PROJECT_ID ?? null,
    maxRetries: 0,
    fetch: fetchFor(env),
    // Failures reach the user once, in words, through the run; the SDK would also print them.
    logLevel: "off",
  });
  const quirks: ServerQuirks = { refusesStreamOptions: false };
  const noWebSearch = `the web search tool is Anthropic's: ${settings.label} at ${shownURL(baseURL)} does not offer it`;
  return {
    name,
    stream: (request) => (request.webSearch ? failAtOnce(noWebSearch, request) : streamWithRetries(openAIWire(client, settings, quirks, request), settings, request)),
    callsFree: (model) => servedFree(name, baseURL, model),
  };
}

function openAIWire(client: OpenAI, settings: Settings, quirks: ServerQuirks, request: ModelRequest): WireStream<OpenAI.Chat.Completions.ChatCompletionChunk, OpenAIStreamState> {
  const body = chatCompletionsRequest(request, settings);
  // Whether the last attempt's body said [DONE] (attempts run one after another); unknown, so
  // taken as said, when the SDK read it (it does not tell).
  let saidDone = false;
  return {
    createState: createOpenAIStreamState,
    open: async (attempt, signal, onActivity) => {
      const headers = { "x-stainless-retry-count": String(attempt - 1) };
      saidDone = true;
      // A field the server refuses is left out or swapped (see refused-fields.ts): each
      // lesson is learned once, so this ends.
      for (;;) {
        const sent = bodyFor(body, quirks);
        let whole: Chunk[] | undefined;
        try {
          const events = await openEventStream(
            (fetchOptions: EventStreamInit) =>
              client.chat.completions.create(sent, { signal, maxRetries: 0, headers, fetchOptions: fetchOptions as OpenAI.RequestOptions["fetchOptions"] }).withResponse(),
            async (response) => void (whole = await wholeReply(response, `${settings.label} API`)),
            (socket, responseHeaders) => {
              saidDone = false;
              return openAIEvents(socket, responseHeaders, signal, { onData: onActivity, onDone: () => (saidDone = true) });
            },
          );
          return whole ? chunksFrom(whole) : events;
        } catch (error) {
          if (!learnRefusal(error, sent, quirks)) throw error;
        }
      }
    },
    apply: applyChunk,
    message: openAIAssistantMessage,
    stopReason: openAIStopReason,
    requestFailure: (error) => openAIRequestFailure(error, settings.label, settings.baseURL, request.model),
    streamFailure: (error) => openAIStreamFailure(error, settings.label, request.model),
    incompleteDescription: "the model stream ended before a finish_reason",
    // Some servers leave out the finish_reason, but not [DONE] too: a body that ends without either
    // was cut short (a proxy's timeout, a server that died), however cleanly it closed.
    endedEarly: (state) => (saidDone ? endWithoutFinishReason(state) : undefined),
    local: servedFree(settings.name, settings.baseURL, request.model),
  };
}

async function* chunksFrom(chunks: Chunk[]): AsyncGenerator<Chunk> {
  yield* chunks;
}

/** Whether `baseURL` is OpenAI's own API (which needs a key), not a compatible server. */
export function isOpenAIApi(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

function labelOf(name: string): string {
  if (name === "openai") return "OpenAI";
  if (name === "ollama") return "Ollama";
  return name;
}

