// The Anthropic Messages provider: raw SSE events from the official SDK, mapped to ModelEvents, with
// our own retry loop (the SDK's is off) so that every retry is visible to the caller as an event.
import { setTimeout as sleep } from "node:timers/promises";
import Anthropic from "@anthropic-ai/sdk";
import { type Failure, requestFailure, retryDelayMs, streamFailure } from "./anthropic-failure.ts";
import { applyRawEvent, assistantMessage, createStreamState, finalStopReason, type StreamState } from "./anthropic-stream-state.ts";
import { type EnvLike, resolveMaxTokens, resolveRetrySettings, type RetrySettings } from "./settings.ts";
import type { ModelEvent, ModelRequest, Provider, StopReason } from "./types.ts";

export type AnthropicProviderOptions = {
  /** Default: ANTHROPIC_API_KEY. Without a key the SDK's own credential lookup applies (ANTHROPIC_AUTH_TOKEN, …). */
  apiKey?: string;
  /** Default: ANTHROPIC_BASE_URL, else the SDK's default (https://api.anthropic.com). */
  baseURL?: string;
  /** Retries after the first attempt. Default: HARNESS_MODEL_RETRIES, else 4. */
  maxRetries?: number;
  /** First backoff delay; doubles with each retry. Default: HARNESS_RETRY_BASE_MS, else 500. */
  retryBaseMs?: number;
  /** max_tokens when the request names none. Default 32000. */
  maxTokens?: number;
};

type Settings = RetrySettings & { maxTokens: number; baseURL: string };

/** Throws (RangeError) only for malformed options or HARNESS_* variables; stream() never throws. */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}, env: EnvLike = process.env): Provider {
  const apiKey = options.apiKey || env.ANTHROPIC_API_KEY || undefined;
  const baseURL = options.baseURL || env.ANTHROPIC_BASE_URL || undefined;
  const client = new Anthropic({
    apiKey,
    baseURL,
    maxRetries: 0,
    // The key goes in x-api-key, the header every Anthropic-compatible endpoint accepts.
    ...(apiKey && { defaultHeaders: { "x-api-key": apiKey, authorization: null } }),
  });
  const settings: Settings = {
    ...resolveRetrySettings(options, env),
    maxTokens: resolveMaxTokens(options.maxTokens),
    baseURL: client.baseURL,
  };
  return { name: "anthropic", stream: (request) => streamWithRetries(client, settings, request) };
}

function requestBody(request: ModelRequest, maxTokens: number): Anthropic.MessageCreateParamsStreaming {
  const body: Anthropic.MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: request.maxTokens ?? maxTokens,
    // ModelMessage is the Messages API's own transcript shape (a subset of MessageParam).
    messages: request.messages as Anthropic.MessageParam[],
    stream: true,
  };
  if (request.system !== undefined && request.system !== "") body.system = request.system;
  // Our schemas are JSON Schema objects; the SDK's type only narrows `type` to "object".
  if (request.tools && request.tools.length > 0) body.tools = request.tools as Anthropic.Tool[];
  return body;
}

async function* streamWithRetries(client: Anthropic, settings: Settings, request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal } = request;
  const body = requestBody(request, settings.maxTokens);
  for (let attempt = 1; ; attempt++) {
    const state = createStreamState();
    if (signal?.aborted) {
      yield done(state, "aborted");
      return;
    }
    let emitted = false;
    let failure: Failure | undefined;
    let stream: AsyncIterable<Anthropic.RawMessageStreamEvent> | undefined;
    try {
      const headers = { "x-stainless-retry-count": String(attempt - 1) };
      stream = await client.messages.create(body, { signal, maxRetries: 0, headers });
    } catch (error) {
      failure = requestFailure(error, settings.baseURL);
    }
    if (stream) {
      try {
        // On abort the SDK ends this loop quietly; the signal is checked below.
        for await (const raw of stream) {
          const event = applyRawEvent(state, raw);
          if (event !== undefined) {
            emitted = true;
            yield event;
          }
          if (state.fatal !== undefined) break;
        }
      } catch (error) {
        failure = streamFailure(error);
      }
    }

    if (state.complete && failure === undefined) {
      yield done(state, finalStopReason(state));
      return;
    }
    if (signal?.aborted) {
      yield done(state, "aborted");
      return;
    }
    if (state.fatal !== undefined) {
      yield done(state, "error", state.fatal);
      return;
    }
    failure ??= { description: "the model stream ended before message_stop", retryable: true };
    if (emitted) {
      yield done(state, "error", `model stream broke after partial output: ${failure.description}`);
      return;
    }
    if (!failure.retryable) {
      yield done(state, "error", failure.description);
      return;
    }
    if (attempt > settings.maxRetries) {
      yield done(state, "error", `${failure.description} — gave up after ${attempt} attempts`);
      return;
    }
    const delayMs = retryDelayMs(attempt, settings.retryBaseMs, failure.retryAfterMs);
    yield { type: "retry", attempt, delayMs, reason: failure.description };
    await sleep(delayMs, undefined, { signal }).catch(() => undefined);
  }
}

function done(state: StreamState, stopReason: StopReason, errorMessage?: string): ModelEvent {
  const event: ModelEvent = { type: "done", stopReason, message: assistantMessage(state), usage: state.usage };
  if (errorMessage !== undefined) event.errorMessage = errorMessage;
  return event;
}
