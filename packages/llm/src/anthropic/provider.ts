// The Anthropic Messages provider: the official SDK makes the requests, their raw SSE events are
// mapped to ModelEvents, with the shared retry loop (the SDK's is off) so that every retry is
// visible to the caller as an event.
import type Anthropic from "@anthropic-ai/sdk";
import { anthropicEvents } from "./events.ts";
import { openEventStream } from "../net/socket-events.ts";
import { type ClaudeService, requestFailure, streamFailure } from "./failure.ts";
import { anthropicSdk } from "./sdk.ts";
import { applyRawEvent, assistantMessage, createStreamState, finalStopReason, type StreamState } from "./stream-state.ts";
import { withoutBlankText } from "../blank-text.ts";
import { type EventStreamInit, fetchFor, fetchKeyOf, type HttpFetch } from "../net/http-fetch.ts";
import { expectEventStream } from "../retry/policy.ts";
import { CUSTOM_HEADERS_VARIABLE, parseCustomHeaders } from "./custom-headers.ts";
import { type EnvLike, resolveMaxTokens, resolveRetrySettings, type RetrySettings } from "../settings.ts";
import { sdkTracingOption } from "./sdk-tracing.ts";
import { type AwsCommands, type BedrockAuth, bedrockAuth, checkedAuth, refreshBedrockAuth } from "../aws/credentials.ts";
import { bedrockFetch } from "../bedrock/fetch.ts";
import { bedrockSettings } from "../bedrock/settings.ts";
import { vertexFetch } from "../vertex/fetch.ts";
import { checkedToken } from "../google/token.ts";
import { vertexSettings } from "../vertex/settings.ts";
import { streamWithRetries, type WireStream } from "../retry/stream-with-retries.ts";
import { adaptiveEffort, thinkingBudget, thinksAdaptively } from "../thinking.ts";
import { failAtOnce } from "../fail-at-once.ts";
import type { ModelRequest, Provider, WebSearchTool } from "../types.ts";

export type AnthropicProviderOptions = {
  /** Default: ANTHROPIC_API_KEY. Sent as x-api-key. Not used on Vertex AI (CLAUDE_CODE_USE_VERTEX),
   * which takes a Google access token, nor on Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK), which takes
   * AWS credentials. */
  apiKey?: string;
  /** Default: ANTHROPIC_AUTH_TOKEN. Sent as a bearer token when there is no key. */
  authToken?: string;
  /** On Amazon Bedrock: these credentials instead of those the environment and the AWS files give
   * (a server hands them over per run, and keeps them from the runner's environment). */
  bedrockAuth?: BedrockAuth;
  /** On Amazon Bedrock, when the credentials are found rather than handed over: the settings'
   * awsCredentialExport and awsAuthRefresh commands (aws/credentials.ts). */
  awsCommands?: AwsCommands;
  /** On Vertex AI: this access token instead of one minted from Application Default Credentials
   * (likewise). Used as given: it must outlast the run. */
  googleAccessToken?: string;
  /** Default: ANTHROPIC_BASE_URL, else the SDK's default (https://api.anthropic.com). */
  baseURL?: string;
  /** Retries after the first attempt. Default: HARNESS_MODEL_RETRIES, else 4. */
  maxRetries?: number;
  /** First backoff delay; doubles with each retry. Default: HARNESS_RETRY_BASE_MS, else 500. */
  retryBaseMs?: number;
  /** max_tokens when the request names none. Default 32000. */
  maxTokens?: number;
  /** A reply stream silent this long is given up on (and retried when nothing was shown).
   * Default: HARNESS_STREAM_IDLE_MS, else 120 s. */
  streamIdleMs?: number;
};

type Settings = RetrySettings & { maxTokens: number; baseURL: string; service: ClaudeService };

/** Throws (RangeError) only for malformed options, HARNESS_*, Vertex or Bedrock variables; stream() never throws. */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}, env: EnvLike = process.env): Provider {
  const custom = parseCustomHeaders(env[CUSTOM_HEADERS_VARIABLE]);
  if ("problem" in custom) throw new RangeError(custom.problem);
  // Every request of the run, to the model and for its credentials, goes through the run's proxy.
  const transport = { fetch: fetchFor(env), key: fetchKeyOf(env) };
  const cloud = cloudOf(env, options, transport.fetch);
  let client: Anthropic;
  if (cloud) {
    client = clientFor(transport, cloud, undefined, undefined, cloud.baseURL, custom.headers);
  } else {
    const apiKey = options.apiKey || env.ANTHROPIC_API_KEY || undefined;
    const authToken = apiKey ? undefined : options.authToken || env.ANTHROPIC_AUTH_TOKEN || undefined;
    client = clientFor(transport, undefined, apiKey, authToken, options.baseURL || env.ANTHROPIC_BASE_URL || undefined, custom.headers);
  }
  const settings: Settings = {
    ...resolveRetrySettings(options, env),
    maxTokens: resolveMaxTokens(options.maxTokens),
    baseURL: client.baseURL,
    service: cloud?.service ?? "Anthropic API",
  };
  // The SDK's warnings said so far by this provider (one is made for each run).
  const warned = new Set<string>();
  // Bedrock's Claude has no server-side web search (Vertex AI's has).
  const noWebSearch = cloud?.service === "Amazon Bedrock" ? "Amazon Bedrock does not offer Anthropic's web search tool: it needs the Anthropic API or Vertex AI" : undefined;
  return {
    name: "anthropic",
    stream: (request) => (request.webSearch && noWebSearch ? failAtOnce(noWebSearch, request) : streamWithRetries(anthropicWire(client, settings, request, warned), settings, request)),
  };
}

/** Claude served by a cloud (Amazon Bedrock, Vertex AI) rather than Anthropic's API: where, under
 * what name, the fetch that speaks its dialect, and what of the environment that fetch reads (its
 * credentials), so that a client is made again when they change. */
type Cloud = { service: ClaudeService; baseURL: string; fetch: HttpFetch; key: unknown[] };

const AWS_CREDENTIAL_VARIABLES = ["AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "HOME"] as const;

/** `given`: the credentials handed over for the run, which the environment's give way to. */
function cloudOf(env: EnvLike, given: Pick<AnthropicProviderOptions, "bedrockAuth" | "awsCommands" | "googleAccessToken">, httpFetch: HttpFetch): Cloud | undefined {
  const bedrock = bedrockSettings(env);
  if (bedrock) {
    const auth = given.bedrockAuth;
    // Credentials handed over are used as they are: what found them (a server) renews them.
    const commands = given.awsCommands ?? {};
    const fetch = auth
      ? bedrockFetch(bedrock, env, httpFetch, async () => checkedAuth(auth))
      : bedrockFetch(bedrock, env, httpFetch, (found) => bedrockAuth(found, commands), () => refreshBedrockAuth(env, commands));
    const found = [...AWS_CREDENTIAL_VARIABLES.map((name) => env[name] ?? null), commands.credentialExport ?? null, commands.authRefresh ?? null];
    return { service: "Amazon Bedrock", baseURL: bedrock.baseURL, fetch, key: [bedrock, auth ?? found] };
  }
  const vertex = vertexSettings(env);
  if (vertex) {
    const token = given.googleAccessToken;
    const fetch = token ? vertexFetch(vertex, env, httpFetch, async () => checkedToken(token, "the Google access token handed over for this run")) : vertexFetch(vertex, env, httpFetch);
    return { service: "Vertex AI", baseURL: vertex.baseURL, fetch, key: [vertex, token ?? [env.GOOGLE_APPLICATION_CREDENTIALS ?? null, env.HOME ?? null]] };
  }
  return undefined;
}

/** Clients made so far, by key and endpoint: a client holds only its configuration, and making one
 * costs a run a fraction of a millisecond. */
const clients = new Map<string, Anthropic>();
const MAX_CLIENTS = 16;

/** `cloud`: the client sends its requests to Bedrock or Vertex AI, with the credentials of the
 * environment it was made for. */
function clientFor(transport: { fetch: HttpFetch; key: unknown }, cloud: Cloud | undefined, apiKey: string | undefined, authToken: string | undefined, baseURL: string | undefined, headers: Record<string, string>): Anthropic {
  const openTelemetry = sdkTracingOption();
  const key = JSON.stringify([transport.key, cloud?.service ?? null, cloud?.key ?? null, apiKey ?? null, authToken ?? null, baseURL ?? null, headers, openTelemetry ?? null]);
  let client = clients.get(key);
  if (!client) {
    client = new (anthropicSdk().default)({
      // At most one credential (the SDK takes them as exclusive); with none, the SDK's own lookup
      // (its profiles) applies. On a cloud a placeholder keeps the SDK from looking for one of
      // Anthropic's: the cloud's fetch puts its own credentials in its place.
      ...(cloud ? { authToken: "cloud" } : apiKey ? { apiKey } : authToken ? { authToken } : {}),
      baseURL,
      maxRetries: 0,
      fetch: cloud?.fetch ?? transport.fetch,
      // Failures reach the user once, in words, through the run; the SDK would also print them.
      logLevel: "off",
      ...(openTelemetry === false && { openTelemetry }),
      // The key goes in x-api-key, the header every Anthropic-compatible endpoint accepts; the
      // custom headers (ANTHROPIC_CUSTOM_HEADERS) go with every request.
      defaultHeaders: { ...headers, ...(apiKey && { "x-api-key": apiKey, authorization: null }) },
    });
    if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value as string);
    clients.set(key, client);
  }
  return client;
}

function requestBody(request: ModelRequest, maxTokens: number): Anthropic.MessageCreateParamsStreaming {
  const max = request.maxTokens ?? maxTokens;
  const body: Anthropic.MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: max,
    // ModelMessage is the Messages API's own transcript shape (a subset of MessageParam).
    messages: withoutBlankText(request.messages) as Anthropic.MessageParam[],
    stream: true,
  };
  if (request.system !== undefined && request.system !== "") body.system = request.system;
  // Our schemas are JSON Schema objects; the SDK's type only narrows `type` to "object".
  if (request.tools && request.tools.length > 0) body.tools = request.tools as Anthropic.Tool[];
  if (request.webSearch) body.tools = [...(body.tools ?? []), webSearchTool(request.webSearch)];
  if (thinksAdaptively(request.model)) {
    const effort = adaptiveEffort(request);
    if (effort !== undefined) {
      body.thinking = { type: "adaptive" };
      body.output_config = { effort };
    }
    return body;
  }
  const budget = thinkingBudget(request, max);
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  return body;
}

function webSearchTool({ maxUses, allowedDomains, blockedDomains }: WebSearchTool): Anthropic.WebSearchTool20250305 {
  return {
    type: "web_search_20250305",
    name: "web_search",
    ...(maxUses !== undefined && { max_uses: maxUses }),
    ...(allowedDomains && allowedDomains.length > 0 && { allowed_domains: allowedDomains }),
    ...(blockedDomains && blockedDomains.length > 0 && { blocked_domains: blockedDomains }),
  };
}

function anthropicWire(client: Anthropic, settings: Settings, request: ModelRequest, warned: Set<string>): WireStream<Anthropic.RawMessageStreamEvent, StreamState> {
  const body = requestBody(request, settings.maxTokens);
  let warnings: string[] = [];
  let requestId: string | undefined;
  return {
    createState: createStreamState,
    open: async (attempt, signal, onActivity) => {
      requestId = undefined;
      const headers = { "x-stainless-retry-count": String(attempt - 1) };
      const send = (fetchOptions: EventStreamInit) =>
        sdkWarningsOf(() => client.messages.create(body, { signal, maxRetries: 0, headers, fetchOptions: fetchOptions as Anthropic.RequestOptions["fetchOptions"] }), (message) => {
          if (!warned.has(message)) {
            warned.add(message);
            warnings.push(message);
          }
        }).withResponse();
      return openEventStream(
        send,
        (response) => {
          requestId = response.headers.get("request-id") ?? undefined;
          return expectEventStream(response, settings.service);
        },
        (socket, responseHeaders) => anthropicEvents(socket, responseHeaders, signal, onActivity),
      );
    },
    takeWarnings() {
      const taken = warnings;
      warnings = [];
      return taken;
    },
    apply: applyRawEvent,
    message: assistantMessage,
    stopReason: finalStopReason,
    requestFailure: (error) => {
      requestId ??= (error as { requestID?: string | null }).requestID ?? undefined;
      return requestFailure(error, settings.baseURL, settings.service);
    },
    requestId: () => requestId,
    streamFailure: (error) => streamFailure(error, true, settings.service),
    incompleteDescription: "the model stream ended before message_stop",
  };
}

/** Calls `call`, handing what the SDK prints with console.warn while it runs (a deprecated model, as
 * the request is made) to `onWarning` instead of the process's stderr, where a runner's log would
 * swallow it and a terminal would show it raw before every request. The SDK warns synchronously. */
function sdkWarningsOf<T>(call: () => T, onWarning: (message: string) => void): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => onWarning(args.map(String).join(" ").replace(/\s*\n\s*/g, " ").trim());
  try {
    return call();
  } finally {
    console.warn = warn;
  }
}
