// A real HTTP server on 127.0.0.1 that plays scripted replies in the OpenAI chat-completions wire
// format, so that the real `openai` SDK (or any OpenAI-compatible client) can be pointed at it
// through OPENAI_BASE_URL.
import { type FakeServer, type Incoming, readJson, recordOf, type RequestBody, startFakeServer } from "./fake-server-core.ts";
import { playOpenAIReply, sendOpenAIJson } from "./fake-openai-reply.ts";
import type { FakeOpenAI, FakeOpenAIOptions, FakeOpenAIReply } from "./fake-openai-types.ts";
import { errorBody } from "./fake-openai-wire.ts";

/** Chat completions, with or without the /v1 prefix (clients differ in what they put in the base URL). */
const ROUTES: ReadonlySet<string> = new Set(["/v1/chat/completions", "/chat/completions"]);
const MODELS: ReadonlySet<string> = new Set(["/v1/models", "/models"]);

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const quirks = options.quirks ?? {};
  const handle = async (incoming: Incoming, fake: FakeServer<FakeOpenAIReply>): Promise<void> => {
    const { req, res, path } = incoming;
    const key = /^Bearer (.*)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if (options.apiKeys && !options.apiKeys.includes(key)) {
      req.resume();
      const shown = key === "" ? "none" : `${key.slice(0, 3)}***${key.slice(-4)}`;
      sendOpenAIJson(res, 401, errorBody("invalid_request_error", `Incorrect API key provided: ${shown}.`, "invalid_api_key"));
      return;
    }
    if (req.method === "GET" && MODELS.has(path)) {
      req.resume();
      sendOpenAIJson(res, 200, { object: "list", data: (options.models ?? ["gpt-test"]).map((id) => ({ id, object: "model", created: 0, owned_by: "fake-openai" })) });
      return;
    }
    if (req.method !== "POST" || !ROUTES.has(path)) {
      req.resume();
      sendOpenAIJson(res, 404, errorBody("invalid_request_error", `fake-openai: no route for ${req.method} ${path}`));
      return;
    }
    const parsed = await readJson(req);
    if (!parsed.ok) {
      sendOpenAIJson(res, 400, errorBody("invalid_request_error", `fake-openai: request body is not valid JSON: ${parsed.error}`));
      return;
    }
    const recorded = recordOf(incoming, parsed.value);
    const index = fake.record(recorded);
    const invalid = describeInvalidBody(parsed.value);
    if (invalid) {
      sendOpenAIJson(res, 400, errorBody("invalid_request_error", invalid));
      return;
    }
    const body = parsed.value as RequestBody;
    if (quirks.rejectsStreamOptions && body.stream_options !== undefined) {
      sendOpenAIJson(res, 400, errorBody("invalid_request_error", "Unrecognized request argument supplied: stream_options"));
      return;
    }
    const field = quirks.refusesTokensField;
    if (field && body[field] !== undefined) {
      const other = field === "max_tokens" ? "max_completion_tokens" : "max_tokens";
      sendOpenAIJson(res, 400, errorBody("invalid_request_error", `Unsupported parameter: '${field}' is not supported with this model. Use '${other}' instead.`, "unsupported_parameter"));
      return;
    }
    const reply = fake.replyTo(recorded, index, res);
    const played = { ...body, ...(quirks.noUsage && { stream_options: undefined }), ...(quirks.ignoresStream && { stream: false }) };
    if (reply) await playOpenAIReply(reply, played, res);
  };

  const fake = await startFakeServer<FakeOpenAIReply>({
    name: "fake-openai",
    requestKind: "chat-completions",
    replies: options.replies,
    respond: options.respond,
    keepRequests: options.keepRequests,
    handle,
    sendServerError: (res, message) => sendOpenAIJson(res, 500, errorBody("server_error", message)),
  });
  return {
    url: `${fake.origin}/v1`,
    requests: fake.requests,
    push: fake.push,
    waitForRequests: fake.waitForRequests,
    close: fake.close,
  };
}

/** What the real API would reject with a 400, worded like its messages. */
function describeInvalidBody(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body: must be a JSON object";
  const b = body as RequestBody;
  if (typeof b.model !== "string" || b.model === "") return "you must provide a model parameter";
  if (!Array.isArray(b.messages) || b.messages.length === 0) return "'messages' must contain at least one message";
  return undefined;
}
