// A real HTTP server on 127.0.0.1 that plays scripted replies in the Anthropic Messages wire format,
// so that the real SDK (and Claude Code itself) can be pointed at it through ANTHROPIC_BASE_URL.
// It also answers as Claude on Vertex AI does (ANTHROPIC_VERTEX_BASE_URL=<url>/v1): a POST to
// …/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:streamRawPredict (or :rawPredict)
// with the Messages body minus `model`, plus anthropic_version. Those requests are recorded with the
// rest, as sent (path, headers, body), and take the same scripted replies. So does Claude on Amazon
// Bedrock (ANTHROPIC_BEDROCK_BASE_URL=<url>): a POST to /model/{modelId}/invoke-with-response-stream
// (or /invoke) with the Messages body minus `model` and `stream`, plus anthropic_version, signed
// with SigV4 by one of `awsKeys` or carrying `bedrockApiKey` as a bearer token (or neither, as
// from a gateway), answered in AWS event-stream frames.
import type { IncomingHttpHeaders } from "node:http";
import { type FakeServer, type Incoming, readJson, recordOf, type RequestBody, startFakeServer } from "./fake-server-core.ts";
import { asBedrock, exceptionFor, exceptionFrame, FAKE_AWS_KEYS, FAKE_BEDROCK_API_KEY, signatureProblem } from "./fake-bedrock-wire.ts";
import { estimateInputTokens, playReply, sendJson } from "./fake-anthropic-reply.ts";
import type { FakeAnthropic, FakeAnthropicOptions, FakeReply, RecordedRequest } from "./fake-anthropic-types.ts";
import { defaultErrorMessage, errorBody } from "./fake-anthropic-wire.ts";

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const sideRequests: RecordedRequest[] = [];

  const handle = async (incoming: Incoming, fake: FakeServer<FakeReply>): Promise<void> => {
    const { req, res, path } = incoming;
    if (path === "/" && (req.method === "GET" || req.method === "HEAD")) {
      // A client checking that the base URL answers at all.
      req.resume();
      sendJson(res, 200, { ok: true });
      return;
    }
    const vertex = VERTEX_PATH.exec(path);
    if (vertex && req.method === "POST") {
      await handleVertex(incoming, fake, decodeURIComponent(vertex[1]));
      return;
    }
    const bedrock = BEDROCK_PATH.exec(path);
    if (bedrock && req.method === "POST") {
      await handleBedrock(incoming, fake, decodeURIComponent(bedrock[1]), bedrock[2] === "invoke-with-response-stream");
      return;
    }
    if (req.method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")) {
      req.resume();
      sendJson(res, 404, errorBody("not_found_error", `fake-anthropic: no route for ${req.method} ${path}`));
      return;
    }
    if (options.apiKeys && !options.apiKeys.includes(keyOf(req.headers))) {
      req.resume();
      sendJson(res, 401, errorBody("authentication_error", defaultErrorMessage("authentication_error")));
      return;
    }
    const parsed = await readJson(req);
    if (!parsed.ok) {
      sendJson(res, 400, errorBody("invalid_request_error", `fake-anthropic: request body is not valid JSON: ${parsed.error}`));
      return;
    }
    const recorded = recordOf(incoming, parsed.value);
    const invalid = describeInvalidBody(parsed.value, path);
    if (invalid) {
      if (path === "/v1/messages") fake.record(recorded);
      sendJson(res, 400, errorBody("invalid_request_error", invalid));
      return;
    }
    const body = parsed.value as RequestBody;
    if (path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: estimateInputTokens(body) });
      return;
    }
    if (options.route?.(recorded) === "side") {
      sideRequests.push(recorded);
      await playReply(options.sideReply?.(recorded) ?? { text: "OK" }, body, res);
      return;
    }
    const index = fake.record(recorded);
    const reply = fake.replyTo(recorded, index, res);
    if (reply) await playReply(reply, body, res);
  };

  const handleVertex = async (incoming: Incoming, fake: FakeServer<FakeReply>, model: string): Promise<void> => {
    const parsed = await readJson(incoming.req);
    if (!parsed.ok) {
      sendJson(incoming.res, 400, errorBody("invalid_request_error", `fake-anthropic: request body is not valid JSON: ${parsed.error}`));
      return;
    }
    const recorded = recordOf(incoming, parsed.value);
    const index = fake.record(recorded);
    const b = parsed.value as RequestBody;
    const invalid =
      b.anthropic_version !== VERTEX_ANTHROPIC_VERSION ? `anthropic_version: must be "${VERTEX_ANTHROPIC_VERSION}"`
      : "model" in b ? "model: Extra inputs are not permitted (Vertex AI takes the model from the path)"
      : describeInvalidBody({ ...b, model }, "/v1/messages");
    if (invalid) {
      sendJson(incoming.res, 400, errorBody("invalid_request_error", invalid));
      return;
    }
    const reply = fake.replyTo(recorded, index, incoming.res);
    if (reply) await playReply(reply, { ...b, model, stream: incoming.path.endsWith(":streamRawPredict") }, incoming.res);
  };

  const handleBedrock = async (incoming: Incoming, fake: FakeServer<FakeReply>, model: string, stream: boolean): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming.req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const res = asBedrock(incoming.res);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString("utf8"));
    } catch (error) {
      sendJson(res, 400, errorBody("invalid_request_error", `fake-anthropic: request body is not valid JSON: ${(error as Error).message}`));
      return;
    }
    const recorded = recordOf(incoming, parsed);
    const index = fake.record(recorded);
    const authorization = String(incoming.req.headers.authorization ?? "");
    const refused =
      authorization.startsWith("Bearer ") ? (authorization.slice(7) === (options.bedrockApiKey ?? FAKE_BEDROCK_API_KEY) ? undefined : "Invalid API Key format: Must start with pre-defined prefix")
      : authorization !== "" ? signatureProblem("POST", incoming.url, incoming.req.headers, raw, options.awsKeys ?? [FAKE_AWS_KEYS])
      : undefined;
    if (refused) {
      sendJson(res, 403, errorBody("permission_error", refused));
      return;
    }
    const signedBy = /^AWS4-HMAC-SHA256 Credential=([^/]+)\//.exec(authorization)?.[1];
    if (signedBy !== undefined && options.expiredAwsKeys?.includes(signedBy)) {
      sendJson(res, 403, errorBody("ExpiredTokenException", "The security token included in the request is expired"));
      return;
    }
    const b = parsed as RequestBody;
    const invalid =
      b.anthropic_version !== BEDROCK_ANTHROPIC_VERSION ? `anthropic_version: must be "${BEDROCK_ANTHROPIC_VERSION}"`
      : "model" in b ? "model: Extra inputs are not permitted (Bedrock takes the model from the path)"
      : "stream" in b ? "stream: Extra inputs are not permitted"
      : describeInvalidBody({ ...b, model }, "/v1/messages");
    if (invalid) {
      sendJson(res, 400, errorBody("invalid_request_error", invalid));
      return;
    }
    const reply = fake.replyTo(recorded, index, res);
    if (reply?.kind === "stream-error" && stream && !reply.afterText) {
      // Bedrock fails a stream before any event with an exception frame alone.
      const type = reply.errorType ?? "overloaded_error";
      incoming.res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
      incoming.res.end(exceptionFrame(exceptionFor(type, true), reply.message ?? defaultErrorMessage(type)));
    } else if (reply) await playReply(reply, { ...b, model, stream }, res);
  };

  const fake = await startFakeServer<FakeReply>({
    name: "fake-anthropic",
    requestKind: "/v1/messages",
    replies: options.replies,
    respond: options.respond,
    keepRequests: options.keepRequests,
    handle,
    sendServerError: (res, message) => sendJson(res, 500, errorBody("api_error", message)),
  });
  return {
    url: fake.origin,
    requests: fake.requests,
    sideRequests,
    push: fake.push,
    waitForRequests: fake.waitForRequests,
    close: fake.close,
  };
}

/** The key a Messages request carries: its x-api-key, else its bearer token ("" with neither). */
function keyOf(headers: IncomingHttpHeaders): string {
  const key = headers["x-api-key"];
  if (typeof key === "string") return key;
  const authorization = headers.authorization ?? "";
  return authorization.startsWith("Bearer ") ? authorization.slice(7) : "";
}

const VERTEX_PATH = /\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(?:streamRawPredict|rawPredict)$/;
const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";
const BEDROCK_PATH = /\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;
const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** What the real API would reject with a 400, worded like its messages. */
function describeInvalidBody(body: unknown, path: string): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body: must be a JSON object";
  const b = body as RequestBody;
  if (typeof b.model !== "string" || b.model === "") return "model: Field required (a non-empty string)";
  if (!Array.isArray(b.messages)) return "messages: Field required (an array)";
  if (path === "/v1/messages" && typeof b.max_tokens !== "number") return "max_tokens: Field required (a number)";
  return undefined;
}
