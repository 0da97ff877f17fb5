// Folds the chunks of one chat-completions stream into ModelEvents and an Anthropic-form assistant
// message. Tool calls stream by index: a call is complete when a call with another index begins
// (calls stream one after another, as the OpenAI SDK also assumes) or when the finish_reason comes.
import { randomUUID } from "node:crypto";
import type OpenAI from "openai";
import type { AttemptState } from "../retry/stream-with-retries.ts";
import { badInputMessage, parseToolInput } from "../tool-input.ts";
import { type ContentSplit, createThinkTags, flushContent, splitContent, type ThinkTags } from "./think-tags.ts";
import type { ContentBlock, ModelEvent, ModelMessage, StopReason } from "../types.ts";

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ToolCallDelta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall;

/** Reasoning text as OpenAI-compatible servers stream it (DeepSeek, vLLM: reasoning_content;
 * Ollama, OpenRouter: reasoning). Not part of the OpenAI SDK's types. */
type ReasoningDelta = { reasoning_content?: string | null; reasoning?: string | null };

type ToolAcc = {
  id: string;
  name: string;
  args: string;
  /** tool-call-start was emitted (it waits for the name). */
  started: boolean;
  /** Parsed arguments, once the call is complete. */
  input: Record<string, unknown> | undefined;
};

export type OpenAIStreamState = AttemptState & {
  text: string;
  /** In order of first appearance; `byIndex` finds them by their stream index. */
  tools: ToolAcc[];
  byIndex: Map<number, ToolAcc>;
  current: ToolAcc | undefined;
  finishReason: string | null;
  refused: boolean;
  /** The reasoning streamed, and the field it came in, to send back (see REASONING_SIGNATURE). */
  reasoning: string;
  reasoningField: ReasoningField;
  usageReported: boolean;
  /** Reasoning in <think> tags at the start of the content (see think-tags.ts). */
  thinkTags: ThinkTags;
};

/** "content": the reasoning came in <think> tags in the content, and does not go back. */
export type ReasoningField = "reasoning_content" | "reasoning" | "content";

/** The `signature` of a thinking block that holds an OpenAI-compatible server's reasoning, after
 * the field it came in: it goes back to such a server in that field (DeepSeek refuses a tool call's
 * follow-up without it), but for reasoning that came in <think> tags in the content, which goes
 * back nowhere; and never to Anthropic, which would refuse it as a forged signature. */
export const REASONING_SIGNATURE = "openai-compatible:";

export function createOpenAIStreamState(): OpenAIStreamState {
  return {
    complete: false,
    fatal: undefined,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    text: "",
    tools: [],
    byIndex: new Map(),
    current: undefined,
    finishReason: null,
    refused: false,
    reasoning: "",
    reasoningField: "reasoning_content",
    usageReported: false,
    thinkTags: createThinkTags(),
  };
}

export function applyChunk(state: OpenAIStreamState, chunk: Chunk): ModelEvent | ModelEvent[] | undefined {
  // Groq puts the usage under x_groq (in its last chunk).
  const usage = chunk.usage ?? (chunk as { x_groq?: { usage?: OpenAI.CompletionUsage } }).x_groq?.usage;
  if (usage) applyUsage(state, usage);
  // Until a chunk brings usage, the call's usage is not known (see Usage.unreportedCalls).
  else if (!state.usageReported) state.usage.unreportedCalls = 1;
  const choice = chunk.choices?.[0];
  if (!choice) return undefined;
  const delta = choice.delta;
  // The hot path: a chunk of text and nothing else.
  if (delta?.content && state.thinkTags.mode === "text" && !delta.tool_calls && !choice.finish_reason && !delta.refusal && !hasReasoning(delta as ReasoningDelta)) {
    state.text += delta.content;
    return { type: "text-delta", text: delta.content };
  }
  const out: ModelEvent[] = [];
  if (delta) {
    const { reasoning_content: content, reasoning } = delta as ReasoningDelta;
    if (content || reasoning) {
      state.reasoning += content || reasoning;
      state.reasoningField = content ? "reasoning_content" : "reasoning";
      out.push({ type: "thinking-delta", text: (content || reasoning)! });
      // A server that parses the reasoning out leaves none unopened in the content: a lone </think>
      // there is the reply's (a leading <think> block is still taken as thinking).
      state.thinkTags.leadingOnly = true;
    }
    if (delta.content) addContent(state, splitContent(state.thinkTags, delta.content), out);
    else if (delta.tool_calls || delta.refusal) addContent(state, flushContent(state.thinkTags), out);
    if (delta.refusal) {
      state.refused = true;
      state.text += delta.refusal;
      out.push({ type: "text-delta", text: delta.refusal });
    }
    if (delta.tool_calls) {
      for (let i = 0; i < delta.tool_calls.length && state.fatal === undefined; i++) applyToolCall(state, delta.tool_calls[i], out);
    }
  }
  if (choice.finish_reason && state.fatal === undefined) finish(state, choice.finish_reason, out);
  return out.length === 0 ? undefined : out.length === 1 ? out[0] : out;
}

/** Content as the think-tags reader split it: the text withdrawn as thinking, thinking, then text. */
function addContent(state: OpenAIStreamState, { thinking, text, withdraw }: ContentSplit, out: ModelEvent[]): void {
  if (withdraw && state.text) {
    out.push({ type: "text-withdrawn", text: state.text });
    thinking = state.text + thinking;
    state.text = "";
  }
  if (thinking) {
    state.reasoning += thinking;
    state.reasoningField = "content";
    out.push({ type: "thinking-delta", text: thinking });
  }
  if (text) {
    state.text += text;
    out.push({ type: "text-delta", text });
  }
}

function finish(state: OpenAIStreamState, reason: string | null, out: ModelEvent[]): void {
  addContent(state, flushContent(state.thinkTags), out);
  state.finishReason = reason;
  // OpenRouter and some gateways end a reply whose upstream failed this way, without an error object:
  // what came is cut short, not a finished answer.
  if (reason === "error") state.fatal = `the server ended the reply with finish_reason "error", giving no reason (the model's provider failed mid-reply)`;
  for (const tool of state.tools) {
    if (tool.input === undefined && state.fatal === undefined) endTool(state, tool, out);
  }
  state.complete = state.fatal === undefined;
}

/** The body ended cleanly (a connection that breaks fails the read instead) without a finish_reason,
 * which some compatible servers leave out: a reply with something in it ends there, its tool calls
 * with it. An empty one stays incomplete, to be tried again. */
export function endWithoutFinishReason(state: OpenAIStreamState): ModelEvent[] | undefined {
  if (state.fatal !== undefined || (state.text === "" && state.thinkTags.held.trim() === "" && state.tools.length === 0)) return undefined;
  const out: ModelEvent[] = [];
  finish(state, null, out);
  return out;
}

function hasReasoning(delta: ReasoningDelta): boolean {
  return Boolean(delta.reasoning_content || delta.reasoning);
}

function applyToolCall(state: OpenAIStreamState, call: ToolCallDelta, out: ModelEvent[]): void {
  const indexed = typeof call.index === "number";
  const index = indexed ? call.index : indexWithout(state, call);
  let tool = state.byIndex.get(index);
  // Some servers number every call 0: another id with a name begins another call, which takes the
  // index over from the one before.
  if (tool && indexed && call.id && call.id !== tool.id && call.function?.name) tool = undefined;
  if (!tool) {
    // A new call ends the one before, so that it is announced as soon as it is whole. With indexes,
    // calls may interleave (two calls' names first, their arguments after): one whose arguments
    // are not yet a whole JSON object is left to end with the reply.
    const current = state.current;
    if (current && current.input === undefined) {
      const whole = indexed && current.args.trim() !== "" ? parseToolInput(current.args) : undefined;
      if (!indexed || whole !== undefined) endTool(state, current, out, whole);
    }
    if (state.fatal !== undefined) return;
    tool = { id: call.id || `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`, name: "", args: "", started: false, input: undefined };
    state.byIndex.set(index, tool);
    state.tools.push(tool);
    state.current = tool;
  }
  const name = call.function?.name;
  if (name && !tool.started) tool.name += name;
  // Some servers send the arguments as the object itself rather than its JSON.
  const raw: unknown = call.function?.arguments;
  const piece = typeof raw === "object" && raw !== null ? JSON.stringify(raw) : (raw as string | undefined);
  if (piece) tool.args += piece;
  if (!tool.started) {
    if (!tool.name) return;
    tool.started = true;
    out.push({ type: "tool-call-start", id: tool.id, name: tool.name });
    // Arguments that came with (or before) the name.
    if (tool.args) out.push({ type: "tool-call-delta", id: tool.id, partialJson: tool.args });
  } else if (piece) {
    out.push({ type: "tool-call-delta", id: tool.id, partialJson: piece });
  }
}

/** Some servers leave out `index`: a delta with an id or a name begins a new call, any other
 * continues the current one. */
function indexWithout(state: OpenAIStreamState, call: ToolCallDelta): number {
  // Some servers repeat the call's id (and even its name) on every delta of it.
  const continues = state.current && (call.id ? call.id === state.current.id : !call.function?.name);
  if (continues) {
    for (const [index, tool] of state.byIndex) if (tool === state.current) return index;
  }
  return -1 - state.tools.length;
}

/** `parsed`: the arguments already parsed, when the caller had to. */
function endTool(state: OpenAIStreamState, tool: ToolAcc, out: ModelEvent[], parsed?: Record<string, unknown>): void {
  if (!tool.started) {
    state.fatal = `the model sent a tool call without a function name (${tool.id})`;
    return;
  }
  const input = parsed ?? parseToolInput(tool.args);
  if (input === undefined) {
    tool.input = {};
    out.push({ type: "tool-call-end", id: tool.id, name: tool.name, input: tool.input, inputError: badInputMessage(tool.name, tool.args) });
    return;
  }
  tool.input = input;
  out.push({ type: "tool-call-end", id: tool.id, name: tool.name, input });
}

/** prompt_tokens counts cached tokens too; inputTokens does not (as in Anthropic's usage). */
function applyUsage(state: OpenAIStreamState, usage: OpenAI.CompletionUsage): void {
  state.usageReported = true;
  delete state.usage.unreportedCalls;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  state.usage.inputTokens = Math.max(0, (usage.prompt_tokens ?? 0) - cached);
  state.usage.outputTokens = usage.completion_tokens ?? 0;
  state.usage.cacheReadTokens = cached;
}

/** The text, then the complete tool calls, as an Anthropic-form assistant message. */
export function openAIAssistantMessage(state: OpenAIStreamState): ModelMessage {
  const content: ContentBlock[] = [];
  if (state.reasoning) content.push({ type: "thinking", thinking: state.reasoning, signature: `${REASONING_SIGNATURE}${state.reasoningField}` });
  if (state.text) content.push({ type: "text", text: state.text });
  for (const tool of state.tools) {
    if (tool.input !== undefined) content.push({ type: "tool_use", id: tool.id, name: tool.name, input: tool.input });
  }
  return { role: "assistant", content };
}

/** finish_reason as a StopReason. Some servers say "stop" after tool calls; the calls decide. */
export function openAIStopReason(state: OpenAIStreamState): StopReason {
  const hasTools = state.tools.some((t) => t.input !== undefined);
  switch (state.finishReason) {
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      if (hasTools) return "tool_use";
      return state.refused ? "refusal" : "end_turn";
  }
}
