// Our Anthropic-form request as a chat-completions request. What has no counterpart there is
// dropped: cache_control, and thinking blocks, but for the reasoning an OpenAI-compatible server
// gave during the current turn, which goes back to it in the field it came in (DeepSeek's thinking
// mode refuses a tool call's follow-up without it, and reasoning of earlier turns with it).
import type OpenAI from "openai";
import { REASONING_SIGNATURE } from "./stream-state.ts";
import { adaptiveEffort } from "../thinking.ts";
import type { ContentBlock, ImageBlock, ModelMessage, ModelRequest, TextBlock, ToolResultBlock } from "../types.ts";

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

export type ChatRequestOptions = {
  /** max_tokens for most servers; OpenAI's own reasoning models take only max_completion_tokens. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Sent when the request names no maxTokens; nothing is sent when both are absent. */
  maxTokens?: number;
};

export function chatCompletionsRequest(request: ModelRequest, options: ChatRequestOptions): Params {
  const messages: Message[] = [];
  const system = typeof request.system === "string" ? request.system : joinText(request.system ?? []);
  if (system) messages.push({ role: "system", content: system });
  // The current turn: what follows the last message in which the user said something (not only
  // tool results).
  const turnStart = request.messages.findLastIndex((message) => message.role === "user" && saysSomething(message));
  request.messages.forEach((message, i) => {
    if (message.role === "user") pushUser(messages, message);
    else pushAssistant(messages, message, i > turnStart);
  });
  const params: Params = { model: request.model, messages, stream: true, stream_options: { include_usage: true } };
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  const maxTokens = request.maxTokens ?? options.maxTokens;
  if (maxTokens !== undefined) params[options.maxTokensField] = maxTokens;
  const effort = reasoningEffort(request);
  if (effort) params.reasoning_effort = effort;
  return params;
}

/** reasoning_effort: the effort the run asks for, sent to any server, as asked; or, for a model known
 * to reason (OpenAI's o-series, GPT-5 but its chat models, gpt-oss), the level of a thinking budget ("ultrathink",
 * `alwaysThinkingEnabled`, MAX_THINKING_TOKENS), read as the Claude models read it and at most
 * "high", which every such model takes. Other servers may refuse the field, and a budget the user
 * did not phrase as an effort must not break their runs. A budget of 0 is thinking off. */
function reasoningEffort(request: ModelRequest): Params["reasoning_effort"] | undefined {
  if (request.thinking && !(request.thinking.budgetTokens > 0)) return undefined;
  if (request.effort && !request.thinking) return request.effort;
  if (!request.thinking || !REASONS.test(request.model)) return request.effort;
  const level = adaptiveEffort(request);
  return level === "max" ? "high" : level;
}

/** Model ids that take reasoning_effort, with or without a gateway's prefix (openai/gpt-5). */
const REASONS = /(?:^|[/.:])(?:o\d+(?:-mini|-pro)?(?=[-@:]|$)|gpt-5(?![.\d]*-chat)|gpt-oss)/;

/** Said in place of a PDF document block: chat completions have no part for one. */
export const PDF_NOT_SENT = "(A PDF document was left out: this model's server takes no PDFs. Extract the text through Bash instead, for example: pdftotext file.pdf - | head -500)";

/** Tool results become `tool` messages, which must come right after the assistant's tool calls;
 * the rest of the user's blocks, and any images the tools returned (a tool message holds text
 * only), follow as one user message. */
function pushUser(out: Message[], message: ModelMessage): void {
  if (typeof message.content === "string") {
    out.push({ role: "user", content: message.content });
    return;
  }
  const parts: UserPart[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block) });
      const images = typeof block.content === "string" ? [] : block.content.filter((b): b is ImageBlock => b.type === "image");
      if (images.length > 0) {
        parts.push({ type: "text", text: `Images returned by tool call ${block.tool_use_id}:` });
        for (const image of images) parts.push(imagePart(image));
      }
    } else if (block.type === "text") {
      parts.push({ type: "text", text: block.text });
    } else if (block.type === "image") {
      parts.push(imagePart(block));
    } else if (block.type === "document") {
      parts.push({ type: "text", text: PDF_NOT_SENT });
    }
  }
  if (parts.length === 0) return;
  const textOnly = parts.every((p) => p.type === "text");
  out.push({ role: "user", content: textOnly ? parts.map((p) => (p as { text: string }).text).join("\n\n") : parts });
}

function saysSomething(message: ModelMessage): boolean {
  return typeof message.content === "string" || message.content.some((block) => block.type === "text" || block.type === "image" || block.type === "document");
}

function pushAssistant(out: Message[], message: ModelMessage, currentTurn: boolean): void {
  if (typeof message.content === "string") {
    out.push({ role: "assistant", content: message.content });
    return;
  }
  const text = joinText(message.content);
  const toolCalls: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[] = [];
  let reasoning: { field: string; text: string } | undefined;
  for (const block of message.content) {
    if (block.type === "thinking" && currentTurn && block.signature.startsWith(REASONING_SIGNATURE)) {
      const field = block.signature.slice(REASONING_SIGNATURE.length);
      if (field === "reasoning_content" || field === "reasoning") reasoning = { field, text: block.thinking };
    }
    if (block.type !== "tool_use") continue;
    toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input) } });
  }
  const sent: Message = toolCalls.length === 0 ? { role: "assistant", content: text } : { role: "assistant", content: text || null, tool_calls: toolCalls };
  // A field the SDK's types do not know, sent as the server streamed it.
  if (reasoning) (sent as unknown as Record<string, string>)[reasoning.field] = reasoning.text;
  out.push(sent);
}

function toolResultText(block: ToolResultBlock): string {
  const text = typeof block.content === "string" ? block.content : joinText(block.content.map((part) => (part.type === "document" ? { type: "text", text: PDF_NOT_SENT } : part)));
  return block.is_error ? `Error: ${text}` : text;
}

function joinText(blocks: readonly (ContentBlock | TextBlock)[]): string {
  let text = "";
  for (const block of blocks) {
    if (block.type !== "text" || block.text === "") continue;
    text += text ? `\n\n${block.text}` : block.text;
  }
  return text;
}

function imagePart(image: ImageBlock): UserPart {
  const url = image.source.type === "base64" ? `data:${image.source.media_type};base64,${image.source.data}` : image.source.url;
  return { type: "image_url", image_url: { url } };
}
