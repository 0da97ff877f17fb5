// A real HTTP server on 127.0.0.1 that plays scripted replies in the Anthropic Messages wire format,
// so that the real SDK (and Claude Code itself) can be pointed at it through ANTHROPIC_BASE_URL.
import { type FakeServer, type Incoming, readJson, recordOf, type RequestBody, startFakeServer } from "./fake-server-core.ts";
import { estimateInputTokens, playReply, sendJson } from "./fake-anthropic-reply.ts";
import type { FakeAnthropic, FakeAnthropicOptions, FakeReply, RecordedRequest } from "./fake-anthropic-types.ts";
import { errorBody } from "./fake-anthropic-wire.ts";

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
    if (req.method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")) {
      req.resume();
      sendJson(res, 404, errorBody("not_found_error", `fake-anthropic: no route for ${req.method} ${path}`));
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

/** What the real API would reject with a 400, worded like its messages. */
function describeInvalidBody(body: unknown, path: string): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body: must be a JSON object";
  const b = body as RequestBody;
  if (typeof b.model !== "string" || b.model === "") return "model: Field required (a non-empty string)";
  if (!Array.isArray(b.messages)) return "messages: Field required (an array)";
  if (path === "/v1/messages" && typeof b.max_tokens !== "number") return "max_tokens: Field required (a number)";
  return undefined;
}
