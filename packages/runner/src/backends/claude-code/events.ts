// Claude Code's message stream → RunnerProtocol events, plus what the run's outcome is made of
// (transcript, per-call usage, session id, the checkpoint uuid of the prompt, files it created).
import type { SDKMessage, SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import type { AgentEvent, ModelRetry, RunAvailable, TranscriptMessage, Usage } from "@harness/protocol";
import { pricedCall, ratesOf, type Rates } from "./rates.ts";
import { formatDuration } from "@harness/llm/retry-policy";

type Block = Record<string, unknown>;
type AgentFields = { agentId?: string; parentToolUseId?: string };

export type MappedRun = {
  /** This run's conversation: the prompt and steer messages as Claude Code took them, the main
   * agent's replies (one message per model response) and the tool results. */
  transcript: TranscriptMessage[];
  /** Usage of each main-agent model call, in order. */
  turns: Usage[];
  /** Usage of every model call reported (sub-agents' too), by the call's id, as last reported. */
  calls: Map<string, Usage>;
  sessionId?: string;
  model?: string;
  /** Every result message; a steered run can have more than one. */
  results: SDKResultMessage[];
  /** Claude Code's uuid of the run's first user message: the file checkpoint taken before it. */
  promptUuid?: string;
  /** Claude Code's uuid of the last message of the main conversation (where a later resume can
   * cut the conversation when the turns after this run are rewound). */
  lastUuid?: string;
  /** User messages Claude Code has taken (the prompt and each steer message). */
  promptsTaken: number;
  /** Files that did not exist before a Write of this run created them (absolute paths). */
  createdFiles: string[];
  /** The API rejected the credentials (Claude Code would otherwise retry for minutes). */
  authFailed: boolean;
  /** Claude Code's prices (see rates.ts): those it started with, updated at each result. */
  rates: Rates;
};

export type EventMapper = { handle(message: SDKMessage): void; run: MappedRun };

/** The model Claude Code names on the messages it writes itself, which no model call made. */
const SYNTHETIC_MODEL = "<synthetic>";

/** `rates`: Claude Code's prices as its earlier results in this workspace showed them. */
export function createEventMapper(emit: (event: AgentEvent) => void, rates: Rates = {}): EventMapper {
  const run: MappedRun = { transcript: [], turns: [], calls: new Map(), results: [], promptsTaken: 0, createdFiles: [], authFailed: false, rates: { ...rates } };
  /** Message ids whose text arrived as stream deltas (their complete blocks are not re-sent). */
  const streamedText = new Set<string>();
  /** Likewise, the ids of model calls whose thinking streamed. */
  const streamedThinking = new Set<string>();
  /** Per agent ("" = main): the message being streamed, its model, the usage its message_start
   * reported and the text and thinking sent of each of its blocks (by index). */
  const streaming = new Map<string, { id: string; model?: string; usage: Usage; texts: Map<number, string>; thinking: Map<number, string> }>();
  /** Agent/Task tool call id → the sub-agent's task id. */
  const taskIds = new Map<string, string>();
  let lastAssistant: { id: string; entry: { role: "assistant"; content: Block[] } } | undefined;
  /** Model calls reported (call.completed), by message id: each once, however many lines it spans. */
  const reported = new Set<string>();
  /** Per sub-agent (by the Agent call that started it): its last call reported, whose real output
   * count Claude Code tells as the agent finishes; `corrected` once that count was reported. */
  const lastSubCall = new Map<string, { id: string; usage: Usage; fields: AgentFields; model?: string; corrected?: true }>();
  /** The model last named, for a message that does not name its own. */
  let model: string | undefined;

  /** Reports a finished model call of `model`, priced as Claude Code prices it when its price is
   * known (a sub-agent may run on another model than the main agent, at the same time). A usage that
   * is not made of counts (another version's, or a broken line) is not reported. */
  function reportCall(id: unknown, usage: Usage, fields: AgentFields, model: string | undefined): void {
    if (typeof id !== "string" || reported.has(id)) return;
    reported.add(id);
    const counts = [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens ?? 0, usage.cacheWriteTokens ?? 0];
    if (!counts.every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0)) return;
    emitCall(id, usage, fields, model);
    if (fields.parentToolUseId) lastSubCall.set(fields.parentToolUseId, { id, usage, fields, model });
  }

  function emitCall(id: string, usage: Usage, fields: AgentFields, model: string | undefined): void {
    const priced = pricedCall(model, usage, run.rates);
    run.calls.set(id, priced);
    emit({ type: "call.completed", ...fields, callId: id, usage: priced });
  }

  /** Claude Code streams none of a sub-agent's calls: each line of one carries the usage it began
   * with, its output count a placeholder. What it does tell, as the agent finishes, is its last
   * call's real count: the whole usage in the Agent call's result (a foreground agent), or the
   * call's total tokens in the task's notification (one in the background). That call is then
   * reported again under its id with the real output count; the others keep theirs until the run's
   * end (whose totals count them all). */
  function correctSubCall(parent: string, outputTokens: number): void {
    const last = lastSubCall.get(parent);
    if (!last || last.corrected || !Number.isInteger(outputTokens) || outputTokens <= last.usage.outputTokens) return;
    last.corrected = true;
    emitCall(last.id, { ...last.usage, outputTokens }, last.fields, last.model);
  }

  const agentFields = (parent: string | null | undefined, agentId?: unknown): AgentFields => {
    if (!parent) return {};
    return { agentId: typeof agentId === "string" ? agentId : (taskIds.get(parent) ?? parent), parentToolUseId: parent };
  };

  function onStreamEvent(message: Extract<SDKMessage, { type: "stream_event" }>): void {
    const key = message.parent_tool_use_id ?? "";
    const event = message.event;
    switch (event.type) {
      case "message_start": {
        const u = event.message.usage;
        if (typeof event.message.model === "string") model = event.message.model;
        streaming.set(key, { id: event.message.id, model, usage: usageOf(u), texts: new Map(), thinking: new Map() });
        return;
      }
      case "content_block_delta": {
        if (event.delta.type === "thinking_delta") {
          const current = streaming.get(key);
          if (current) {
            streamedThinking.add(current.id);
            current.thinking.set(event.index, (current.thinking.get(event.index) ?? "") + event.delta.thinking);
          }
          if (event.delta.thinking) emit({ type: "assistant.thinking", ...agentFields(message.parent_tool_use_id), text: event.delta.thinking });
          return;
        }
        if (event.delta.type !== "text_delta") return;
        const current = streaming.get(key);
        if (current) {
          streamedText.add(current.id);
          current.texts.set(event.index, (current.texts.get(event.index) ?? "") + event.delta.text);
        }
        const parent = message.parent_tool_use_id;
        emit(parent ? { type: "assistant.delta", ...agentFields(parent), text: event.delta.text } : { type: "assistant.delta", text: event.delta.text });
        return;
      }
      case "message_delta": {
        const current = streaming.get(key);
        if (!current) return;
        const u = event.usage;
        const turn: Usage = { ...current.usage, outputTokens: u.output_tokens ?? current.usage.outputTokens };
        if (typeof u.input_tokens === "number") turn.inputTokens = u.input_tokens;
        if (typeof u.cache_read_input_tokens === "number") turn.cacheReadTokens = u.cache_read_input_tokens;
        if (typeof u.cache_creation_input_tokens === "number") turn.cacheWriteTokens = u.cache_creation_input_tokens;
        if (!message.parent_tool_use_id) run.turns.push(turn);
        reportCall(current.id, turn, agentFields(message.parent_tool_use_id), current.model);
        streaming.delete(key);
        return;
      }
      case "message_stop": {
        // Claude Code's own message_stop for a stream that broke off: it asks again, and the blocks
        // from `from_block_index` on are not part of the reply (the answer comes as a new message).
        const abandoned = (message as { abandoned_blocks?: { from_block_index?: unknown } }).abandoned_blocks;
        const current = streaming.get(key);
        if (!abandoned || !current) return;
        const from = typeof abandoned.from_block_index === "number" ? abandoned.from_block_index : 0;
        const after = (blocks: Map<number, string>) => [...blocks.keys()].filter((index) => index >= from).sort((a, b) => a - b).map((index) => blocks.get(index)).join("");
        const [text, thinking] = [after(current.texts), after(current.thinking)];
        streaming.delete(key);
        if (thinking) emit({ type: "assistant.retracted", ...agentFields(message.parent_tool_use_id), text: thinking, thinking: true });
        if (text) emit({ type: "assistant.retracted", ...agentFields(message.parent_tool_use_id), text });
        return;
      }
    }
  }

  function onAssistant(message: Extract<SDKMessage, { type: "assistant" }>): void {
    const m = message.message;
    run.sessionId = message.session_id;
    if (!message.parent_tool_use_id) run.lastUuid = message.uuid;
    // Claude Code's own messages (a local command's output: /cost, /context) name this model: no
    // model call made them.
    const synthetic = m.model === SYNTHETIC_MODEL;
    if (m.model && !synthetic) run.model = model = m.model;
    if (message.error === "authentication_failed") run.authFailed = true;
    const fields = agentFields(message.parent_tool_use_id, (message as { agent_id?: unknown }).agent_id);
    const blocks = m.content as unknown as Block[];
    // A call that streamed is reported at its message_delta; one that did not (a sub-agent's) at its
    // first line, whose usage Claude Code gives again on the others: the usage as the call began, its
    // output tokens not yet counted (Claude Code tells no more of a sub-agent's call; the run's end
    // has them).
    const key = message.parent_tool_use_id ?? "";
    const u = (m as { usage?: unknown }).usage;
    if (!synthetic && streaming.get(key)?.id !== m.id && typeof u === "object" && u !== null && "output_tokens" in u) {
      reportCall(m.id, usageOf(u as Parameters<typeof usageOf>[0]), fields, model);
    }
    for (const block of blocks) {
      // Thinking that did not stream (no partial messages, or a sub-agent's) comes whole; a redacted
      // block has no text and shows nothing.
      if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking && !streamedThinking.has(m.id)) {
        emit({ type: "assistant.thinking", ...fields, text: block.thinking });
      } else if (block.type === "text" && typeof block.text === "string" && block.text && !streamedText.has(m.id)) {
        emit({ type: "assistant.delta", ...fields, text: block.text });
      } else if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
        emit({ type: "tool.started", ...fields, toolName: block.name, toolUseId: block.id, input: asRecord(block.input) });
      }
    }
    if (message.parent_tool_use_id) return;
    // Claude Code sends one assistant message per finished content block; they share the id.
    if (lastAssistant?.id === m.id && run.transcript.at(-1) === lastAssistant.entry) {
      lastAssistant.entry.content.push(...blocks);
    } else {
      lastAssistant = { id: m.id, entry: { role: "assistant", content: [...blocks] } };
      run.transcript.push(lastAssistant.entry);
    }
  }

  function onUser(message: Extract<SDKMessage, { type: "user" }>): void {
    if (!message.parent_tool_use_id && message.uuid) run.lastUuid = message.uuid;
    const content = message.message.content;
    const blocks = typeof content === "string" ? [] : (content as unknown as Block[]);
    const results = blocks.filter((b) => b.type === "tool_result");
    if (results.length === 0) {
      if (!("isReplay" in message && message.isReplay) || message.parent_tool_use_id) return;
      run.promptsTaken++;
      if (run.promptUuid === undefined) run.promptUuid = message.uuid;
      run.transcript.push({ role: "user", content: typeof content === "string" ? content : blocks });
      // Every message taken after the prompt is a steer: it reaches the model now, after the results
      // of the calls that were running when it was sent.
      if (run.promptsTaken > 1) emit({ type: "user.message", text: typeof content === "string" ? content : textOf(blocks), steer: true });
      return;
    }
    const fields = agentFields(message.parent_tool_use_id, (message as { agent_id?: unknown }).agent_id);
    for (const r of results) {
      if (typeof r.tool_use_id !== "string") continue;
      emit({ type: "tool.completed", ...fields, toolUseId: r.tool_use_id, output: resultText(r.content), isError: r.is_error === true });
    }
    if (!message.parent_tool_use_id) {
      const agentUsage = asRecord(asRecord(message.tool_use_result).usage);
      const last = typeof results[0]?.tool_use_id === "string" ? lastSubCall.get(results[0].tool_use_id) : undefined;
      // The result's usage is the agent's last call's when its input is that call's.
      if (last && agentUsage.input_tokens === last.usage.inputTokens && typeof agentUsage.output_tokens === "number") {
        correctSubCall(results[0].tool_use_id as string, agentUsage.output_tokens);
      }
    }
    const created = createdFile(message.tool_use_result);
    if (created) run.createdFiles.push(created);
    if (!message.parent_tool_use_id) run.transcript.push({ role: "user", content: blocks });
  }

  let lastAvailable: string | undefined;

  function handle(message: SDKMessage): void {
    switch (message.type) {
      case "stream_event":
        return onStreamEvent(message);
      case "assistant":
        return onAssistant(message);
      case "user":
        return onUser(message);
      case "result":
        run.sessionId = message.session_id;
        run.results.push(message);
        Object.assign(run.rates, ratesOf(message));
        return;
      case "system":
        if (message.subtype === "init") {
          run.sessionId = message.session_id;
          run.model ??= message.model;
          const available = availableOf(message);
          const said = JSON.stringify(available);
          // Claude Code says it again at each turn of a run driven turn by turn.
          if (said !== lastAvailable) emit({ type: "run.ready", available });
          lastAvailable = said;
        } else if (message.subtype === "task_started" && message.tool_use_id) {
          taskIds.set(message.tool_use_id, message.task_id);
        } else if (message.subtype === "task_notification" && message.tool_use_id) {
          // Its total_tokens: the last call's input, cache reads and writes, and output.
          const last = lastSubCall.get(message.tool_use_id);
          const total = message.usage?.total_tokens;
          if (last && typeof total === "number") {
            const input = last.usage.inputTokens + (last.usage.cacheReadTokens ?? 0) + (last.usage.cacheWriteTokens ?? 0);
            correctSubCall(message.tool_use_id, total - input);
          }
        } else if (message.subtype === "api_retry") {
          if (message.error === "authentication_failed") run.authFailed = true;
          // Otherwise Claude Code's waits (minutes, over all its attempts) are silence.
          else emit({ type: "notice", level: "warning", message: retryNotice(message), retry: retryOf(message) });
        } else if (message.subtype === "informational") {
          // What Claude Code's own screen shows between messages (a refusal it goes on from, a hook
          // that stopped the run); "info" lines it shows only in its transcript view, and lines of
          // a tool call are its progress.
          if (message.level !== "info" && !message.tool_use_id && message.content) emit({ type: "notice", level: message.level === "warning" ? "warning" : "info", message: message.content });
        } else if (message.subtype === "model_refusal_fallback" || message.subtype === "model_refusal_no_fallback") {
          if (message.content) emit({ type: "notice", level: "warning", message: message.content });
        }
        return;
    }
  }

  return { handle, run };
}

/** What Claude Code's init message says the run has, as run.ready carries it. The message is
 * another program's: what an older or newer Claude Code leaves out or says otherwise is left empty
 * (a name that is no string, a server without one), so that the run goes on. */
function availableOf(init: Extract<SDKMessage, { type: "system"; subtype: "init" }>): RunAvailable {
  const raw = init as unknown as Record<string, unknown>;
  const servers = Array.isArray(raw.mcp_servers) ? (raw.mcp_servers as unknown[]) : [];
  return {
    model: typeof raw.model === "string" ? raw.model : "",
    slashCommands: names(raw.slash_commands),
    tools: names(raw.tools),
    mcpServers: servers.flatMap((server) => {
      const { name, status } = (server ?? {}) as { name?: unknown; status?: unknown };
      return typeof name === "string" ? [{ name, status: typeof status === "string" ? status : "unknown" }] : [];
    }),
    agents: names(raw.agents),
    skills: names(raw.skills),
    outputStyle: typeof raw.output_style === "string" ? raw.output_style : "default",
  };
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((name): name is string => typeof name === "string") : [];
}

/** A retry Claude Code announced, in the words the builtin backend uses for its own. */
export function retryNotice(m: { attempt: number; max_retries: number; retry_delay_ms: number; error_status: number | null; error: string }): string {
  const reason = m.error_status ? `HTTP ${m.error_status}, ${m.error}` : m.error;
  return `The model request failed (${reason}); trying again in ${formatDuration(Math.round(m.retry_delay_ms))} (attempt ${m.attempt + 1} of ${m.max_retries + 1}).`;
}

/** The same retry in fields: Claude Code's `attempt` counts the attempts that failed, as `retry.attempt` does. */
export function retryOf(m: { attempt: number; max_retries: number; retry_delay_ms: number; error_status: number | null; error: string }): ModelRetry {
  return {
    attempt: m.attempt,
    maxAttempts: m.max_retries + 1,
    ...(typeof m.error_status === "number" && { status: m.error_status }),
    error: m.error,
    delayMs: Math.round(m.retry_delay_ms),
  };
}

function usageOf(u: { input_tokens?: number | null; output_tokens?: number | null; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null }): Usage {
  return {
    inputTokens: u.input_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    cacheReadTokens: u.cache_read_input_tokens ?? 0,
    cacheWriteTokens: u.cache_creation_input_tokens ?? 0,
  };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A tool_result's content as the text a person reads (images and documents as placeholders). */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: Block) => (b.type === "text" && typeof b.text === "string" ? b.text : b.type === "image" || b.type === "document" ? `[${b.type}]` : ""))
    .filter(Boolean)
    .join("\n");
}

function textOf(blocks: Block[]): string {
  return blocks.map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
}

/** The path of a file that a Write created (its result says "create", not "update"). */
function createdFile(toolUseResult: unknown): string | undefined {
  const r = asRecord(toolUseResult);
  return r.type === "create" && typeof r.filePath === "string" ? r.filePath : undefined;
}
