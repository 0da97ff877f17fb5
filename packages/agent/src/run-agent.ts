// The agent loop: call the model, run the tools it asks for, send the results back, repeat until
// it answers without tool calls. Plain functions: runAgent → streamTurn → executeToolCalls.
import type { ModelMessage, ToolSchema } from "@harness/llm";
import type { AgentEvent, Usage } from "@harness/protocol";
import { executeToolCalls, INTERRUPTED } from "./execute-tool-calls.ts";
import { streamTurn } from "./stream-turn.ts";
import { defaultSystemPrompt } from "./system-prompt.ts";
import { builtinTools } from "./tools/index.ts";
import { closeDanglingToolUses, textOf, toolUsesOf, withUserText } from "./transcript.ts";
import type { AgentStopReason, RunAgentOptions, RunAgentResult, Tool } from "./types.ts";
import { addUsage, emptyUsage } from "./usage.ts";

export const DEFAULT_MAX_TURNS = 100;

const MODEL_FAILED = "Not run: the model request failed before this tool call could run.";

type RunState = {
  transcript: ModelMessage[];
  usage: Usage;
  /** Ids of tool calls announced with tool.started, so each gets a tool.completed. */
  started: Set<string>;
  lastReply: ModelMessage | undefined;
  emit: (event: AgentEvent) => void;
};

/** Runs one user prompt to completion. Never rejects: failures come back as stopReason "error" and
 * cancellation as "aborted", always with a transcript that can be sent back as the next history. */
export async function runAgent(options: RunAgentOptions): Promise<RunAgentResult> {
  const state: RunState = {
    transcript: withUserText(options.history ?? [], options.prompt),
    usage: emptyUsage(),
    started: new Set(),
    lastReply: undefined,
    emit: options.emit,
  };
  try {
    return await runLoop(options, state);
  } catch (error) {
    return finish(state, "error", `The agent loop failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function runLoop(options: RunAgentOptions, state: RunState): Promise<RunAgentResult> {
  const { provider, model, signal, cwd, emit } = options;
  const tools = options.tools ?? builtinTools();
  const toolMap = new Map<string, Tool>(tools.map((tool) => [tool.name, tool]));
  const toolSchemas: ToolSchema[] = tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));
  const system = options.systemPrompt ?? defaultSystemPrompt({ cwd, model });
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;

  for (let turn = 0; turn < maxTurns; turn++) {
    if (signal.aborted) return finish(state, "aborted");
    const request = { model, system, messages: state.transcript, signal, ...(toolSchemas.length > 0 && { tools: toolSchemas }) };
    const outcome = await streamTurn(provider, request, emit, state.started);
    addUsage(state.usage, outcome.usage);
    if (outcome.message) {
      state.transcript.push(outcome.message);
      state.lastReply = outcome.message;
    }
    if (outcome.stopReason === "aborted" || signal.aborted) return finish(state, "aborted");
    if (outcome.stopReason === "error") return finish(state, "error", outcome.errorMessage ?? `The ${provider.name} model request failed.`);

    const calls = outcome.message ? toolUsesOf(outcome.message) : [];
    if (calls.length === 0) return finish(state, "end_turn");
    for (const call of calls) {
      if (state.started.has(call.id)) continue;
      state.started.add(call.id);
      emit({ type: "tool.started", toolName: call.name, toolUseId: call.id, input: call.input });
    }
    const results = await executeToolCalls(calls, { tools: toolMap, cwd, signal, emit });
    state.transcript.push({ role: "user", content: results });
    if (signal.aborted) return finish(state, "aborted");
  }
  return finish(
    state,
    "max_turns",
    `Reached the maximum of ${maxTurns} model turn${maxTurns === 1 ? "" : "s"} for this run before the task was finished. Send another message to continue.`,
  );
}

function finish(state: RunState, stopReason: AgentStopReason, errorMessage?: string): RunAgentResult {
  if (stopReason === "aborted" || stopReason === "error") {
    const reason = stopReason === "aborted" ? INTERRUPTED : MODEL_FAILED;
    for (const id of closeDanglingToolUses(state.transcript, reason)) {
      if (state.started.has(id)) safeEmit(state, { type: "tool.completed", toolUseId: id, output: reason, isError: true });
    }
  }
  const result: RunAgentResult = {
    stopReason,
    result: textOf(state.lastReply),
    transcript: state.transcript,
    usage: state.usage,
  };
  if (errorMessage !== undefined) result.errorMessage = errorMessage;
  else if (stopReason === "aborted") result.errorMessage = INTERRUPTED;
  return result;
}

/** finish() also runs after emit itself has thrown; the result must still come back. */
function safeEmit(state: RunState, event: AgentEvent): void {
  try {
    state.emit(event);
  } catch {
    // The caller's listener is broken; the transcript already records the outcome.
  }
}
