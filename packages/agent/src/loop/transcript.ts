// Keeping the conversation valid for the model API: no empty messages or text blocks, and every
// tool_use answered by a tool_result in the message right after it.
import { isBlankText, type ContentBlock, type DocumentBlock, type ImageBlock, type ModelMessage, type TextBlock, type ToolResultBlock, type ToolUseBlock } from "@harness/llm";

/** `history` plus the new user text (and `extra` blocks after it, e.g. images it names, hook
 * context). A history
 * that ends with a user message (tool results of an interrupted run, say) gets them added to that
 * message, so roles keep alternating. */
export function withUserText(history: readonly ModelMessage[], text: string, extra: readonly (TextBlock | ImageBlock | DocumentBlock)[] = []): ModelMessage[] {
  const messages = history.slice();
  const last = messages[messages.length - 1];
  const added: ContentBlock[] = [...textBlocks(text), ...extra];
  if (last?.role !== "user") {
    messages.push({ role: "user", content: extra.length === 0 && !isBlankText(text) ? text : added });
    return messages;
  }
  const earlier: ContentBlock[] = typeof last.content === "string" ? textBlocks(last.content) : last.content;
  messages[messages.length - 1] = { role: "user", content: [...earlier, ...added] };
  return messages;
}

function textBlocks(text: string): ContentBlock[] {
  return isBlankText(text) ? [] : [{ type: "text", text }];
}


/** The message without blank text blocks, or undefined when nothing is left. */
export function cleanAssistantMessage(message: ModelMessage): ModelMessage | undefined {
  if (typeof message.content === "string") return isBlankText(message.content) ? undefined : message;
  const content = message.content.filter((block) => block.type !== "text" || !isBlankText(block.text));
  if (content.length === 0) return undefined;
  return content.length === message.content.length ? message : { role: message.role, content };
}

export function toolUsesOf(message: ModelMessage): ToolUseBlock[] {
  if (typeof message.content === "string") return [];
  return message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

export function textOf(message: ModelMessage | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  let text = "";
  for (const block of message.content) if (block.type === "text") text += block.text;
  return text;
}

export function toolResult(toolUseId: string, content: ToolResultBlock["content"], isError: boolean): ToolResultBlock {
  return isError ? { type: "tool_result", tool_use_id: toolUseId, content, is_error: true } : { type: "tool_result", tool_use_id: toolUseId, content };
}

/** If the transcript ends with an assistant message whose tool calls never got results, answers
 * each with an is_error result carrying `reason`. Returns the ids that were answered. */
export function closeDanglingToolUses(messages: ModelMessage[], reason: string): string[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== "assistant") return [];
  const uses = toolUsesOf(last);
  if (uses.length === 0) return [];
  messages.push({ role: "user", content: uses.map((use) => toolResult(use.id, reason, true)) });
  return uses.map((use) => use.id);
}
