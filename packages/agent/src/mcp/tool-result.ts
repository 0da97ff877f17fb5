// Turns an MCP tools/call result into what the model sees.
import { isBlankText } from "@harness/llm";
import { MAX_IMAGE_SOURCE_BYTES } from "../tools/image/fit-image.ts";
import type { ToolImageBlock, ToolOutput, ToolOutputBlock } from "../types.ts";

/** What Claude Code answers for a call that produced no content. */
export const EMPTY_RESULT = "Tool ran without output or errors";
/** What the model is told of a tool that failed without a word (the API refuses an empty error). */
export const FAILED_WITHOUT_OUTPUT = "Tool failed without output";

/** Largest image kept from a result; one the model API would refuse as it is gets shrunk after
 * (fitOutputImages). */
export const MAX_IMAGE_BYTES = MAX_IMAGE_SOURCE_BYTES;

/** Media types the Anthropic API accepts in an image block. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

function isImageType(mimeType: string): mimeType is ToolImageBlock["source"]["media_type"] {
  return IMAGE_TYPES.has(mimeType);
}

type ContentItem = { type: string; [key: string]: unknown };
export type CallToolResultLike = { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown };

/** Results are read as the server sends them, not as the SDK's schema would have them: one
 * malformed or unknown item is described where it stands and the rest is kept (the SDK would
 * refuse the whole answer with a page of validation errors). `content` is the whole result as text, each image mentioned by type and size. When the result
 * holds images, `blocks` carries the result for the model: its texts and images in their order. */
export function convertToolResult(result: CallToolResultLike): ToolOutput {
  const texts: string[] = [];
  const blocks: ToolOutputBlock[] = [];
  let images = 0;
  const note = (text: string) => {
    texts.push(text);
    blocks.push({ type: "text", text });
  };
  const items: unknown[] = Array.isArray(result.content) ? result.content : [];
  if (result.content !== undefined && !Array.isArray(result.content)) note(`[malformed result: "content" must be a list, got ${describeValue(result.content)}]`);
  for (const entry of items) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      note(`[malformed content item omitted: ${describeValue(entry)}]`);
      continue;
    }
    const item = entry as ContentItem;
    switch (item.type) {
      case "text": {
        // Blank text is left out: the model API refuses a text block without other characters.
        if (typeof item.text !== "string") note(`[malformed text item omitted: its "text" is ${describeValue(item.text)}]`);
        else if (!isBlankText(item.text)) note(item.text);
        break;
      }
      case "image": {
        const mimeType = String(item.mimeType ?? "");
        const data = String(item.data ?? "");
        const bytes = base64Bytes(data);
        if (!isImageType(mimeType)) note(`[image of unsupported type ${mimeType || "unknown"} omitted, ${formatBytes(bytes)}]`);
        else if (bytes > MAX_IMAGE_BYTES) note(`[${mimeType} image omitted: ${formatBytes(bytes)}, over the ${MAX_IMAGE_BYTES / (1024 * 1024)} MB limit for images]`);
        else {
          blocks.push({ type: "image", source: { type: "base64", media_type: mimeType, data } });
          texts.push(`[image: ${mimeType}, ${formatBytes(bytes)}]`);
          images++;
        }
        break;
      }
      case "audio":
        note(`[audio (${String(item.mimeType ?? "unknown type")}) omitted: audio cannot be shown to the model]`);
        break;
      case "resource":
        note(describeResource(item.resource));
        break;
      case "resource_link":
        note(`[resource link: ${String(item.name ?? "")} (${String(item.uri ?? "")})]`);
        break;
      default:
        note(`[content of type ${JSON.stringify(item.type)} omitted]`);
    }
  }
  if (!items.length && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent, null, 2));
  // Servers of protocol version 2024-10-07 answer with `toolResult` instead of `content`.
  if (!items.length && result.structuredContent === undefined && result.toolResult !== undefined) {
    texts.push(typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult));
  }
  const content = texts.length ? texts.join("\n") : result.isError === true ? FAILED_WITHOUT_OUTPUT : EMPTY_RESULT;
  const output: ToolOutput = { content, isError: result.isError === true };
  if (images) output.blocks = blocks;
  return output;
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return `the text ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  return value === null ? "null" : value === undefined ? "missing" : Array.isArray(value) ? "a list" : typeof value;
}

function describeResource(resource: unknown): string {
  if (typeof resource !== "object" || resource === null) return "[embedded resource omitted]";
  const r = resource as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
  if (typeof r.text === "string") return r.text;
  const size = typeof r.blob === "string" ? `, ${formatBytes(base64Bytes(r.blob))}` : "";
  return `[binary resource ${String(r.uri ?? "")} (${String(r.mimeType ?? "unknown type")}${size}) omitted]`;
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
