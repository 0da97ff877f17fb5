// The Messages API refuses a text block that holds no characters but whitespace, in any message or
// tool result, and an error result with no content. A conversation stored before such blocks were
// dropped at the source (a model's "\n\n" before a tool call, an MCP tool failing without a word)
// would be refused on every request from then on: requests leave without them.
import { REASONING_SIGNATURE } from "./openai/stream-state.ts";
import type { ContentBlock, ModelMessage, ToolResultBlock } from "./types.ts";

/** Said in place of a message or tool result that held nothing but blank text (a message must stay,
 * so that the roles still alternate). */
export const NO_CONTENT = "(no content)";

/** Text the API refuses as a text block: none, or whitespace only (a model often writes a block of
 * just "\n\n" before a tool call). */
export const isBlankText = (text: string) => text.trim() === "";
const blankText = (block: { type: string; text?: string }) => block.type === "text" && isBlankText(block.text!);

/** `messages` without blank text, in messages and in tool results, and without other providers'
 * reasoning: the same array when none has any (the usual case). */
export function withoutBlankText(messages: readonly ModelMessage[]): ModelMessage[] {
  let out: ModelMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const cleaned = cleanMessage(message);
    if (cleaned !== message) (out ??= messages.slice(0, i)).push(cleaned);
    else out?.push(message);
  }
  return out ?? (messages as ModelMessage[]);
}

/** Reasoning an OpenAI-compatible server gave (openai/stream-state.ts) is not Anthropic's: its
 * "signature" would be refused as forged, so a conversation that changed models leaves it out. */
const foreignThinking = (block: ContentBlock) => block.type === "thinking" && block.signature.startsWith(REASONING_SIGNATURE);

function cleanMessage(message: ModelMessage): ModelMessage {
  if (typeof message.content === "string") return isBlankText(message.content) ? { role: message.role, content: NO_CONTENT } : message;
  if (!message.content.some((block) => blankText(block) || foreignThinking(block) || (block.type === "tool_result" && blankResult(block)))) return message;
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (blankText(block) || foreignThinking(block)) continue;
    content.push(block.type === "tool_result" && blankResult(block) ? cleanResult(block) : block);
  }
  return { role: message.role, content: content.length > 0 ? content : NO_CONTENT };
}

function blankResult(block: ToolResultBlock): boolean {
  return typeof block.content === "string" ? isBlankText(block.content) : block.content.length === 0 || block.content.some(blankText);
}

/** The API also refuses a tool result with no content when it is an error. */
function cleanResult(block: ToolResultBlock): ToolResultBlock {
  const content = typeof block.content === "string" ? [] : block.content.filter((part) => !blankText(part));
  return { ...block, content: content.length > 0 ? content : NO_CONTENT };
}
