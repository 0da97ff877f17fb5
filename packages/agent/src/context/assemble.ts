// What goes into each model request, in a fixed order that keeps the start of every request
// byte-identical from turn to turn, so the provider's prompt cache is reused:
//
//   tools:    tool schemas                       (the API hashes tools first, then system, then messages)
//   system:   [system prompt + appended prompt] [environment] [deferred-tool index] [skills registry]
//   messages: [memory reminder + first user message] [history…]
//
// Memory goes where Claude Code puts it: a <system-reminder> at the start of the first user message,
// rebuilt identically on every request rather than stored in the transcript. The environment (cwd,
// platform, date, git status) goes in the system prompt, as in Claude Code; the caller takes it once
// per run (a snapshot), so it is stable across the turns of a run and across runs while the date and
// the git state do not change. When git status does change between runs, only the environment block
// and what follows it are re-cached: the static system prompt and the tools stay cached.
//
// Cache breakpoints (at most 4): the last tool; the system prompt block, when more system blocks
// follow it; the last system block; the last message, so that each turn's request reads the whole
// previous turn from the cache. The inputs are never modified: breakpoints go on copies.
import type { CacheControl, ContentBlock, ModelMessage, TextBlock, ToolSchema } from "@harness/llm";
import { memoryReminder } from "./format-memory.ts";
import { estimateTokens } from "./tokens.ts";
import type { MemoryFile } from "./types.ts";

export const MAX_CACHE_BREAKPOINTS = 4;
const EPHEMERAL: CacheControl = { type: "ephemeral" };

export type RequestContextInput = {
  /** The default system prompt, or the replacement the user configured. */
  systemPrompt: string;
  /** Text appended to the system prompt (Claude Code's --append-system-prompt). */
  appendSystemPrompt?: string;
  /** From environmentBlock(), taken once per run. */
  environment: string;
  /** From loadMemory(). Files found later (nested memory) reach the model through tool results instead. */
  memory: readonly MemoryFile[];
  tools: readonly ToolSchema[];
  /** The tool registry's deferredIndex(): one `name: summary` line per deferred tool. */
  deferredIndex?: string;
  /** skillsRegistry() text. */
  skills?: string;
  /** The conversation so far, ending with the message the model must answer. */
  history: readonly ModelMessage[];
  /** False: no cache breakpoints at all (prompt-caching.ts). */
  caching?: boolean;
};

export type RequestContext = {
  system: TextBlock[];
  tools: ToolSchema[];
  messages: ModelMessage[];
  /** Estimated tokens (estimateTokens) of everything before the history: system, tools and memory. */
  prefixTokens: number;
};

/** Pure: equal inputs give byte-identical output. */
export function assembleRequestContext(input: RequestContextInput): RequestContext {
  const prompt = input.appendSystemPrompt?.trim() ? `${input.systemPrompt}\n\n${input.appendSystemPrompt}` : input.systemPrompt;
  const texts = [prompt, input.environment, deferredSection(input.deferredIndex), input.skills ?? ""].filter((text) => text.trim() !== "");
  const caching = input.caching !== false;
  const system: TextBlock[] = texts.map((text, i) => (caching && (i === texts.length - 1 || i === 0) ? { type: "text", text, cache_control: EPHEMERAL } : { type: "text", text }));

  const tools = input.tools.map(({ cache_control: _drop, ...tool }, i) => (caching && i === input.tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool));

  const reminder = memoryReminder(input.memory);
  const unmarked = withReminder(withoutCacheControl(input.history), reminder);
  const messages = caching ? markLastMessage(unmarked) : unmarked;

  const prefixTokens = estimateTokens(texts.join("\n\n")) + toolTokens(input.tools) + estimateTokens(reminder);
  return { system, tools, messages, prefixTokens };
}

/** Estimated tokens of tool schemas as a request carries them: their JSON at four characters a token. */
export function toolTokens(tools: readonly ToolSchema[]): number {
  return Math.ceil(jsonLength(tools) / 4);
}

/** JSON length of each tool schema seen: the same schemas go into every request of a run. */
const toolJsonLength = new WeakMap<ToolSchema, number>();

/** JSON.stringify(tools).length, each tool's part measured once. */
function jsonLength(tools: readonly ToolSchema[]): number {
  let total = 2 + Math.max(0, tools.length - 1);
  for (const tool of tools) {
    let length = toolJsonLength.get(tool);
    if (length === undefined) {
      length = JSON.stringify(tool).length;
      toolJsonLength.set(tool, length);
    }
    total += length;
  }
  return total;
}

/** The system prompt's part that names the deferred tools; "" when there are none. */
export function deferredSection(index: string | undefined): string {
  if (!index?.trim()) return "";
  return `The following deferred tools are available. Only their names are known until you load them: call ToolSearch (with "select:<name>" or keywords) to get a tool's schema, then call the tool.\n<available-deferred-tools>\n${index.trim()}\n</available-deferred-tools>`;
}

function withReminder(history: ModelMessage[], reminder: string): ModelMessage[] {
  if (!reminder) return history;
  const block: TextBlock = { type: "text", text: reminder };
  const first = history[0];
  if (first?.role !== "user") return [{ role: "user", content: [block] }, ...history];
  const rest: ContentBlock[] = typeof first.content === "string" ? (first.content ? [{ type: "text", text: first.content }] : []) : first.content;
  return [{ role: "user", content: [block, ...rest] }, ...history.slice(1)];
}

/** A copy of `history` with any stray breakpoints removed, so there are never more than four.
 * Only the messages that carry one are copied. */
function withoutCacheControl(history: readonly ModelMessage[]): ModelMessage[] {
  return history.map((message) => {
    if (typeof message.content === "string" || !message.content.some((block) => "cache_control" in block)) return message;
    return { role: message.role, content: message.content.map((block) => ("cache_control" in block ? dropCacheControl(block) : block)) };
  });
}

function dropCacheControl(block: ContentBlock): ContentBlock {
  const copy = { ...block } as ContentBlock & { cache_control?: CacheControl };
  delete copy.cache_control;
  return copy;
}

/** Puts a breakpoint on the last block of the last message that can carry one (thinking blocks and
 * empty text cannot). `messages` is already a copy; only the last message is replaced. */
function markLastMessage(messages: ModelMessage[]): ModelMessage[] {
  const last = messages[messages.length - 1];
  if (!last) return messages;
  const content: ContentBlock[] = typeof last.content === "string" ? (last.content ? [{ type: "text", text: last.content }] : []) : last.content.slice();
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i] as ContentBlock;
    if (block.type === "thinking" || block.type === "redacted_thinking" || (block.type === "text" && block.text === "")) continue;
    content[i] = { ...block, cache_control: EPHEMERAL };
    messages[messages.length - 1] = { role: last.role, content };
    return messages;
  }
  return messages;
}
