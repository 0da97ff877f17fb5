// Plays one scripted reply onto an HTTP response: SSE for stream:true requests, a JSON message for
// stream:false ones, a JSON error body for http-error replies.
import type { ServerResponse } from "node:http";
import { emitter, held, parts, sendJson as writeJson, splitIntoChunks, startSse as writeSseHead, streamText, wholeText, type RequestBody } from "./fake-server-core.ts";
import type { FakeMessageReply, FakeReply, FakeStreamErrorReply, FakeToolUse, FakeUsage } from "./fake-anthropic-types.ts";
import {
  blockStopEvent,
  defaultErrorMessage,
  defaultErrorType,
  errorBody,
  errorEvent,
  estimateTokens,
  inputJsonDeltaEvent,
  MESSAGE_STOP_EVENT,
  messageDeltaEvent,
  messageStartEvent,
  newId,
  PING_EVENT,
  signatureDeltaEvent,
  textBlockStartEvent,
  textDeltaEvent,
  thinkingBlockStartEvent,
  thinkingDeltaEvent,
  thinkingSignature,
  toolUseBlockStartEvent,
  type WireBlock,
  type WireUsage,
} from "./fake-anthropic-wire.ts";
import { citationsDeltaEvent, citationWire, webSearchBlockEvents, webSearchBlocks } from "./fake-anthropic-web-search.ts";

export async function playReply(reply: FakeReply, body: RequestBody, res: ServerResponse): Promise<void> {
  if (reply.kind === "http-error") {
    const type = reply.errorType ?? defaultErrorType(reply.status);
    const headers: Record<string, string> = reply.retryAfter === undefined ? {} : { "retry-after": String(reply.retryAfter) };
    sendJson(res, reply.status, errorBody(type, reply.message ?? defaultErrorMessage(type)), headers);
    return;
  }
  const streaming = body.stream === true;
  if (reply.kind === "stream-error") {
    if (streaming) streamError(reply, body, res);
    else {
      // Without a stream the real API reports the same failure as an HTTP error.
      const type = reply.errorType ?? "overloaded_error";
      sendJson(res, type === "overloaded_error" ? 529 : 500, errorBody(type, reply.message ?? defaultErrorMessage(type)));
    }
    return;
  }
  if (streaming) await streamMessage(reply, body, res);
  else await sendMessageJson(reply, body, res);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  writeJson(res, status, value, { "request-id": newId("req"), ...headers });
}

/** A stream states it twice (message_start, message_delta): measured once per body. */
const inputTokens = new WeakMap<RequestBody, number>();

export function estimateInputTokens(body: RequestBody): number {
  let tokens = inputTokens.get(body);
  if (tokens === undefined) {
    tokens = estimateTokens({ system: body.system, messages: body.messages, tools: body.tools });
    inputTokens.set(body, tokens);
  }
  return tokens;
}

function startSse(res: ServerResponse): void {
  writeSseHead(res, { "request-id": newId("req") });
}

function usageFor(body: RequestBody, usage: FakeUsage | undefined, outputChars: number, reply?: FakeMessageReply): WireUsage {
  const searches = (reply?.webSearches ?? []).filter((search) => !search.errorCode).length;
  return {
    ...(searches > 0 && { server_tool_use: { web_search_requests: searches } }),
    input_tokens: usage?.input_tokens ?? estimateInputTokens(body),
    output_tokens: usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

type PreparedTool = { id: string; name: string; input: Record<string, unknown>; pieces: string[] };

function prepareTools(tools: FakeToolUse[] | undefined): PreparedTool[] {
  return (tools ?? []).map((t) => {
    const json = t.inputJson ?? JSON.stringify(t.input);
    return { id: t.id ?? newId("toolu"), name: t.name, input: t.input, pieces: splitIntoChunks(json, t.chunks ?? 3) };
  });
}

function stopReasonOf(reply: FakeMessageReply): string {
  return reply.stopReason ?? (reply.toolUses && reply.toolUses.length > 0 ? "tool_use" : "end_turn");
}

async function streamMessage(reply: FakeMessageReply, body: RequestBody, res: ServerResponse): Promise<void> {
  const send = emitter(res, reply.delayMs);
  const hasText = parts(reply.text).length > 0 || reply.textChunks !== undefined;
  const tools = prepareTools(reply.toolUses);
  let outputChars = 0;
  startSse(res);
  await send(messageStartEvent(newId("msg"), String(body.model), usageFor(body, reply.usage, 0)));
  let index = 0;
  const thinking = parts(reply.thinking);
  if (thinking.length > 0) {
    await send(thinkingBlockStartEvent(index));
    for (const part of thinking) {
      outputChars += part.length;
      await send(thinkingDeltaEvent(index, part));
    }
    await send(signatureDeltaEvent(index, thinkingSignature(thinking.join(""))));
    await send(blockStopEvent(index));
    index++;
  }
  for (const block of webSearchBlocks(reply.webSearches ?? [])) {
    for (const event of webSearchBlockEvents(index, block)) await send(event);
    index++;
  }
  if (hasText) {
    await send(textBlockStartEvent(index));
    await send(PING_EVENT);
    const textIndex = index;
    for (const citation of reply.citations ?? []) await send(citationsDeltaEvent(textIndex, citation));
    const chars = await streamText(reply, send, res, (text) => textDeltaEvent(textIndex, text));
    if (chars === undefined) return;
    outputChars += chars;
  }
  await held(reply, res, PING_EVENT);
  if (res.destroyed) return;
  if (hasText) {
    await send(blockStopEvent(index));
    index++;
  }
  for (const tool of tools) {
    await send(toolUseBlockStartEvent(index, tool.id, tool.name));
    for (const piece of tool.pieces) {
      outputChars += piece.length;
      await send(inputJsonDeltaEvent(index, piece));
    }
    await send(blockStopEvent(index));
    index++;
  }
  await send(messageDeltaEvent(stopReasonOf(reply), usageFor(body, reply.usage, outputChars, reply), reply.stopDetails));
  await send(MESSAGE_STOP_EVENT);
  res.end();
}

function streamError(reply: FakeStreamErrorReply, body: RequestBody, res: ServerResponse): void {
  startSse(res);
  res.write(messageStartEvent(newId("msg"), String(body.model), usageFor(body, undefined, 0)));
  if (reply.afterText) {
    res.write(textBlockStartEvent(0));
    res.write(textDeltaEvent(0, reply.afterText));
  }
  const type = reply.errorType ?? "overloaded_error";
  res.end(errorEvent(type, reply.message ?? defaultErrorMessage(type)));
}

async function sendMessageJson(reply: FakeMessageReply, body: RequestBody, res: ServerResponse): Promise<void> {
  const text = await wholeText(reply);
  if (reply.hold) await reply.hold.then(undefined, () => undefined);
  if (res.destroyed) return;
  const content: WireBlock[] = [];
  const thinking = parts(reply.thinking).join("");
  if (thinking) content.push({ type: "thinking", thinking, signature: thinkingSignature(thinking) });
  content.push(...webSearchBlocks(reply.webSearches ?? []));
  if (text) content.push({ type: "text", text, ...(reply.citations && { citations: reply.citations.map(citationWire) }) });
  let outputChars = text.length + thinking.length;
  for (const tool of prepareTools(reply.toolUses)) {
    outputChars += tool.pieces.join("").length;
    content.push({ type: "tool_use", id: tool.id, name: tool.name, input: tool.input });
  }
  sendJson(res, 200, {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model: String(body.model),
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: usageFor(body, reply.usage, outputChars, reply),
  });
}
