// `harness run --input-format stream-json`: standard input carries the user's messages as lines of
// JSON in the shape `claude -p --input-format stream-json` reads (as the Agent SDK writes them):
// `{"type":"user","message":{"role":"user","content":"…" or [text and image blocks]}}`. Each one
// is a turn of the same conversation. The lines are read by control.ts, among the control
// protocol's.
import { randomUUID } from "node:crypto";
import { isJsonObject } from "@harness/agent/json-text";
import type { ImageBlock } from "@harness/llm";

/** `sent`: the line's message as written, and its uuid if it has one (for --replay-user-messages). */
export type InputMessage = { prompt: string; images: ImageBlock[]; sent?: { message: Record<string, unknown>; uuid?: string } };

/** A message read, or why a line is not one: `message` is one line naming the line's number. */
export type InputLine = { ok: true; message: InputMessage } | { ok: false; message: string };

const MEDIA_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** Line `number` of the input as a user message. */
export function parseInputLine(line: string, number: number): InputLine {
  const fail = (problem: string): InputLine => ({ ok: false, message: `line ${number}${problem}` });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return fail(` is not JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(value)) return fail(": expected a JSON object, a message of type \"user\"");
  if (value.type !== "user") return fail(`: expected a message of type "user", got ${JSON.stringify(value.type ?? null)}`);
  const message = value.message;
  if (!isJsonObject(message) || message.role !== "user") return fail(': expected "message" to be an object with "role": "user"');
  const { content } = message;
  const sent = { message, ...(typeof value.uuid === "string" && value.uuid !== "" && { uuid: value.uuid }) };
  if (typeof content === "string") return content.trim() === "" ? fail(": the message is empty") : { ok: true, message: { prompt: content, images: [], sent } };
  if (!Array.isArray(content)) return fail(": the message's content must be text or a list of content blocks");
  const texts: string[] = [];
  const images: ImageBlock[] = [];
  for (const [index, block] of content.entries()) {
    const which = `content block ${index + 1}`;
    if (isJsonObject(block) && block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (isJsonObject(block) && block.type === "image") {
      const image = imageOf(block.source);
      if (!image) return fail(`: ${which} is an image without a base64 source (media_type png, jpeg, gif or webp, and data) or a url source`);
      images.push(image);
    } else return fail(`: ${which} is not a text or image block`);
  }
  if (texts.every((text) => text.trim() === "") && images.length === 0) return fail(": the message is empty");
  return { ok: true, message: { prompt: texts.join("\n\n"), images, sent } };
}

/** Claude Code's echo of a message read (--replay-user-messages), as the Agent SDK's
 * SDKUserMessageReplay: the message as sent, under its own uuid or a new one. */
export function replayLine(sent: NonNullable<InputMessage["sent"]>, sessionId: string): string {
  return `${JSON.stringify({ type: "user", message: sent.message, parent_tool_use_id: null, session_id: sessionId, uuid: sent.uuid ?? randomUUID(), isReplay: true })}\n`;
}

function imageOf(source: unknown): ImageBlock | undefined {
  if (!isJsonObject(source)) return undefined;
  if (source.type === "base64" && typeof source.media_type === "string" && MEDIA_TYPES.has(source.media_type) && typeof source.data === "string" && source.data !== "") {
    return { type: "image", source: { type: "base64", media_type: source.media_type as "image/png", data: source.data } };
  }
  if (source.type === "url" && typeof source.url === "string" && source.url !== "") return { type: "image", source: { type: "url", url: source.url } };
  return undefined;
}
