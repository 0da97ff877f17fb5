// Scripted replies for the fake Anthropic Messages server. Each request to /v1/messages takes one
// reply; the same reply answers a streaming request (SSE) and a stream:false request (JSON).
import type { FakeAwsKeys } from "./fake-bedrock-wire.ts";
import type { FakeModelServer, RecordedRequest, ScriptedReplies, ScriptedText } from "./fake-server-core.ts";

export type FakeToolUse = {
  /** Defaults to a unique "toolu_…" id. */
  id?: string;
  name: string;
  input: Record<string, unknown>;
  /** How many input_json_delta events carry the input (default 3; 0 sends none, as for an empty input). */
  chunks?: number;
  /** Raw partial_json text to stream instead of JSON.stringify(input), e.g. to send malformed JSON. */
  inputJson?: string;
};

export type FakeWebSearchResult = { title: string; url: string; pageAge?: string };

export type FakeWebSearch = {
  /** Defaults to a unique "srvtoolu_…" id. */
  id?: string;
  query: string;
  results?: FakeWebSearchResult[];
  /** A web_search_tool_result_error with this error_code instead of results: max_uses_exceeded,
   * too_many_requests, invalid_input, query_too_long or unavailable. */
  errorCode?: string;
};

export type FakeCitation = { url: string; title: string; citedText: string };

export type FakeUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
};

/** The text goes out as text_delta events. */
export type FakeMessageReply = ScriptedText & {
  kind?: "message";
  /** Extended thinking sent before the text, as a thinking block (one thinking_delta per element)
   * closed by a signature_delta; the signature is derived from the thinking text. */
  thinking?: string | string[];
  toolUses?: FakeToolUse[];
  /** Searches made with Anthropic's server-side web_search tool, sent before the text, each as a
   * server_tool_use block and its web_search_tool_result block (see fake-anthropic-web-search.ts). */
  webSearches?: FakeWebSearch[];
  /** Citations of the text (web_search_result_location), sent as citations_delta events. */
  citations?: FakeCitation[];
  /** Default "tool_use" when toolUses are given, else "end_turn". */
  stopReason?: string;
  /** message_delta's stop_details (the API sends them with stop reason "refusal"). */
  stopDetails?: { category: string | null; explanation: string | null };
  /** Defaults are estimated from the request and reply sizes. */
  usage?: FakeUsage;
};

export type FakeHttpErrorReply = {
  kind: "http-error";
  status: number;
  /** Defaults by status: 429 rate_limit_error, 529 overloaded_error, 400 invalid_request_error, … */
  errorType?: string;
  message?: string;
  /** Sent as the retry-after header, in seconds. */
  retryAfter?: number;
};

export type FakeStreamErrorReply = {
  kind: "stream-error";
  /** Text deltas sent before the error event (none when absent). */
  afterText?: string;
  /** Default "overloaded_error". */
  errorType?: string;
  message?: string;
};

export type FakeReply = FakeMessageReply | FakeHttpErrorReply | FakeStreamErrorReply;

export type { RecordedRequest };

export type FakeAnthropic = FakeModelServer<FakeReply> & {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** Every /v1/messages request of the main conversation, in arrival order. */
  requests: RecordedRequest[];
  /** The /v1/messages requests that `route` sent to the side (none without a `route`). */
  sideRequests: RecordedRequest[];
};

/** `respond` and the queue answer main requests only. */
export type FakeAnthropicOptions = ScriptedReplies<FakeReply> & {
  /** The AWS keys whose SigV4 signatures the Bedrock route accepts. Default: FAKE_AWS_KEYS. */
  awsKeys?: readonly FakeAwsKeys[];
  /** Access key ids whose signatures the Bedrock route answers as Bedrock answers expired keys
   * (403, ExpiredTokenException). */
  expiredAwsKeys?: readonly string[];
  /** The Bedrock API key the Bedrock route accepts as a bearer token. Default: FAKE_BEDROCK_API_KEY. */
  bedrockApiKey?: string;
  /** The keys /v1/messages and /v1/messages/count_tokens take (x-api-key, or a bearer token): a
   * request with another, or none, is answered 401 as the API answers it. Default: any key. */
  apiKeys?: readonly string[];
  /** Sorts each /v1/messages request before it is recorded. "side" requests (a client's own
   * housekeeping calls, such as Claude Code's title generation with a small model) get `sideReply`,
   * are recorded in `sideRequests` only, and never take a scripted reply, so the script stays the
   * main conversation's. Default: every request is "main". See `claudeCodeRoute`. */
  route?: (request: RecordedRequest) => "main" | "side";
  /** The answer to side requests. Default: a short text reply, "OK". */
  sideReply?: (request: RecordedRequest) => FakeReply;
};
