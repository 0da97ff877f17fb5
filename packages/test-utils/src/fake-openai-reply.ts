// Plays one scripted reply onto an HTTP response: SSE chunks for stream:true requests, a JSON
// completion for stream:false ones, a JSON error body for http-error replies.
import type { ServerResponse } from "node:http";
import { emitter, held, parts, sendJson, splitIntoChunks, startSse as writeSseHead, streamText, wholeText, type RequestBody } from "./fake-server-core.ts";
import type { FakeOpenAIMessageReply, FakeOpenAIReply, FakeOpenAIToolCall, FakeOpenAIUsage } from "./fake-openai-types.ts";
import {
  type ChunkWriter,
  chunkWriter,
  defaultErrorCode,
  defaultErrorMessage,
  defaultErrorType,
  DONE_EVENT,
  errorBody,
  errorEvent,
  newOpenAIId,
  type WireToolCall,
  type WireUsage,
} from "./fake-openai-wire.ts";

export async function playOpenAIReply(reply: FakeOpenAIReply, body: RequestBody, res: ServerResponse): Promise<void> {
  if (reply.kind === "http-error") {
    const headers: Record<string, string> = reply.retryAfter === undefined ? {} : { "retry-after": String(reply.retryAfter) };
    if (reply.html !== undefined) {
      res.writeHead(reply.status, { ...headers, "content-type": "text/html" }).end(reply.html);
      return;
    }
    const type = reply.errorType ?? defaultErrorType(reply.status);
    const code = reply.code === undefined ? defaultErrorCode(reply.status) : reply.code;
    sendOpenAIJson(res, reply.status, errorBody(type, reply.message ?? defaultErrorMessage(reply.status), code), headers);
    return;
  }
  const streaming = body.stream === true;
  const writer = chunkWriter(newOpenAIId("chatcmpl"), String(body.model), includesUsage(body));
  if (reply.kind === "stream-error" || reply.kind === "stream-break") {
    if (!streaming) {
      sendOpenAIJson(res, 500, errorBody("server_error", "message" in reply && reply.message ? reply.message : defaultErrorMessage(500)));
      return;
    }
    startSse(res);
    const first = writer.delta({ role: "assistant", content: "" });
    const events = reply.afterText ? [first, writer.text(reply.afterText)] : [first];
    if (reply.kind === "stream-break") {
      // Cut the connection once the chunks were handed to the socket, so the client sees them first.
      res.write(events.join(""), () => res.destroy());
      return;
    }
    const message = reply.message ?? defaultErrorMessage(500);
    const error = reply.statusCode === undefined ? errorEvent(reply.errorType ?? "server_error", message) : `data: ${JSON.stringify({ error: { code: reply.statusCode, message } })}\n\n`;
    res.end(events.join("") + error);
    return;
  }
  if (streaming) await streamCompletion(reply, body, writer, res);
  else await sendCompletion(reply, body, res);
}

export function sendOpenAIJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, status, value, { "x-request-id": newOpenAIId("req"), ...headers });
}

function includesUsage(body: RequestBody): boolean {
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  return options?.include_usage === true;
}

function startSse(res: ServerResponse): void {
  writeSseHead(res, { "x-request-id": newOpenAIId("req") });
}

function finishReasonOf(reply: FakeOpenAIMessageReply): string {
  return reply.finishReason ?? (reply.toolCalls && reply.toolCalls.length > 0 ? "tool_calls" : "stop");
}

function usageFor(body: RequestBody, usage: FakeOpenAIUsage | undefined, outputChars: number): WireUsage {
  const prompt = usage?.prompt_tokens ?? Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4));
  const completion = usage?.completion_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

type PreparedCall = { id: string | undefined; call: FakeOpenAIToolCall; json: string };

function prepareCalls(calls: FakeOpenAIToolCall[] | undefined): PreparedCall[] {
  return (calls ?? []).map((call) => ({ id: call.id === null ? undefined : (call.id ?? newOpenAIId("call")), call, json: call.argumentsJson ?? JSON.stringify(call.arguments) }));
}

async function streamCompletion(reply: FakeOpenAIMessageReply, body: RequestBody, writer: ChunkWriter, res: ServerResponse): Promise<void> {
  const send = emitter(res, reply.delayMs);
  let outputChars = 0;
  startSse(res);
  await send(writer.delta({ role: "assistant", content: "" }));
  for (const piece of parts(reply.reasoning)) {
    outputChars += piece.length;
    await send(writer.delta({ reasoning_content: piece }));
  }
  const chars = await streamText(reply, send, res, writer.text);
  if (chars === undefined) return;
  outputChars += chars;
  await held(reply, res, ": keep-alive\n\n");
  if (res.destroyed) return;
  const calls = prepareCalls(reply.toolCalls);
  for (let index = 0; index < calls.length; index++) {
    const { id, call, json } = calls[index];
    outputChars += json.length;
    const head: WireToolCall = { index, ...(id !== undefined && { id }), type: "function", function: { name: call.name, arguments: call.inline ? json : "" } };
    await send(writer.delta({ tool_calls: [head] }));
    if (call.inline) continue;
    for (const piece of splitIntoChunks(json, call.chunks ?? 3)) {
      const next: WireToolCall = { index, function: { arguments: piece } };
      await send(writer.delta({ tool_calls: [next] }));
    }
  }
  if (reply.finishReason !== null) await send(writer.delta({}, finishReasonOf(reply)));
  if (includesUsage(body)) await send(writer.usage(usageFor(body, reply.usage, outputChars)));
  if (!res.destroyed) res.end(reply.omitDone ? undefined : DONE_EVENT);
}

async function sendCompletion(reply: FakeOpenAIMessageReply, body: RequestBody, res: ServerResponse): Promise<void> {
  const text = await wholeText(reply);
  if (reply.hold) await reply.hold.then(undefined, () => undefined);
  if (res.destroyed) return;
  const calls = prepareCalls(reply.toolCalls);
  const message: Record<string, unknown> = { role: "assistant", content: text || null, refusal: null };
  if (calls.length > 0) {
    message.tool_calls = calls.map(({ id, call, json }) => ({ id, type: "function", function: { name: call.name, arguments: json } }));
  }
  const outputChars = text.length + calls.reduce((n, c) => n + c.json.length, 0);
  sendOpenAIJson(res, 200, {
    id: newOpenAIId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: String(body.model),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(reply) }],
    usage: usageFor(body, reply.usage, outputChars),
  });
}
