// The messages to summarize, written out as plain text for the summary request. Plain text (rather
// than the messages themselves) needs no tool definitions, carries no thinking signatures, and works
// with every provider. Very long tool inputs and outputs are shortened to their head and tail.
import type { ContentBlock, ModelMessage } from "@harness/llm";

const MAX_TOOL_RESULT_CHARS = 6_000;
const MAX_TOOL_INPUT_CHARS = 3_000;

export function renderForSummary(messages: readonly ModelMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    const speaker = message.role === "user" ? "User" : "Assistant";
    if (typeof message.content === "string") {
      parts.push(`[${speaker}]\n${message.content}`);
      continue;
    }
    const texts: string[] = [];
    for (const block of message.content) {
      const text = renderBlock(block, speaker);
      if (text) texts.push(text);
    }
    if (texts.length > 0) parts.push(texts.join("\n\n"));
  }
  return parts.join("\n\n");
}

function renderBlock(block: ContentBlock, speaker: string): string {
  switch (block.type) {
    case "text":
      return block.text ? `[${speaker}]\n${block.text}` : "";
    case "image":
      return `[${speaker}: an image]`;
    case "document":
      return `[${speaker}: a PDF document]`;
    case "tool_use":
      return `[Tool call ${block.name} (${block.id})]\n${shorten(JSON.stringify(block.input), MAX_TOOL_INPUT_CHARS)}`;
    case "tool_result": {
      const label = `[Tool result (${block.tool_use_id})${block.is_error ? ", error" : ""}]`;
      const body =
        typeof block.content === "string"
          ? block.content
          : block.content.map((part) => (part.type === "text" ? part.text : part.type === "image" ? "(an image)" : "(a PDF document)")).join("\n");
      return `${label}\n${shorten(body, MAX_TOOL_RESULT_CHARS)}`;
    }
    case "server_tool_use":
      return `[Web search (${block.id})]\n${shorten(JSON.stringify(block.input), MAX_TOOL_INPUT_CHARS)}`;
    case "web_search_tool_result":
      return Array.isArray(block.content) ? `[Web search results (${block.tool_use_id})]\n${block.content.map((r) => `${r.title} — ${r.url}`).join("\n")}` : `[Web search failed (${block.tool_use_id}): ${block.content.error_code}]`;
    case "thinking":
    case "redacted_thinking":
      return "";
  }
}

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.6);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters left out …]\n${text.slice(text.length - tail)}`;
}
