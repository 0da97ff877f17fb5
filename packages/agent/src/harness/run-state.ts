// The mutable state of one run: the conversation as it grows, what the run has paid for, and what
// must be settled before it returns.
import type { ModelMessage } from "@harness/llm";
import type { AgentEvent, Usage } from "@harness/protocol";
import { contextMessages, rejoinTranscript } from "../compaction/context-messages.ts";
import type { TranscriptEntry } from "../compaction/types.ts";
import { addUsage, emptyUsage, pricedUsage } from "../loop/usage.ts";
import type { BackgroundAgents } from "../subagents/background-agents.ts";
import { resourceInternals, type AgentResources } from "./resources.ts";

/** What a run and its sub-agents have spent so far, counted as each model call ends (a sub-agent's
 * calls too, while it is still running): the cost in US dollars that a budget is held to, the
 * model calls, the time spent waiting for them, and the usage of every billed call by the model
 * that made it. Shared by the main run's state and its sub-agents'. */
export type RunSpend = { usd: number; calls: number; apiMs: number; byModel: Record<string, Usage> };

export function emptySpend(): RunSpend {
  return { usd: 0, calls: 0, apiMs: 0, byModel: {} };
}

export type RunState = {
  /** The stored transcript the run started from, or the one the last compaction made (with the
   * summary's `meta`). */
  base: readonly TranscriptEntry[];
  /** What the model sees: the part of `base` from its last summary on, then this run's messages. */
  messages: ModelMessage[];
  usage: Usage;
  turns: Usage[];
  spend: RunSpend;
  /** Ids of tool calls announced with tool.started, so each gets a tool.completed. */
  started: Set<string>;
  lastReply: ModelMessage | undefined;
  /** Tokens the last model request read (input and cache), for automatic compaction. */
  lastRequestTokens?: number;
  /** How many of `messages` that request carried: those after it (the reply, tool results, steer
   * messages) come on top of its tokens in the next one. */
  lastRequestMessages?: number;
  /** Automatic compaction failed once; the run does not try again. */
  autoCompactFailed: boolean;
  /** A Stop hook has kept the run going. */
  stopHookActive: boolean;
  /** Why a hook stopped the run (`continue: false`); the run ends after the current step. */
  stopRequest?: string;
  /** Work the run waits for before it returns (Notification hooks). */
  background: Promise<unknown>[];
  /** The main run's background agents (see harness/agents/background-agents.ts); none in a sub-agent. */
  agents?: BackgroundAgents;
  emit: (event: AgentEvent) => void;
  /** The model the run uses, once chosen. */
  model: string;
  /** Where in `messages` this run's prompt is, when it is a message of its own (not joined to a
   * user message before it); undefined once the conversation was compacted. */
  promptAt?: number;
};

/** A sub-agent's state shares its main run's `spend`; any other starts its own. */
export function createRunState(history: readonly TranscriptEntry[], emit: (event: AgentEvent) => void, spend: RunSpend = emptySpend()): RunState {
  return {
    base: history,
    messages: contextMessages(history),
    usage: emptyUsage(),
    turns: [],
    spend,
    started: new Set(),
    lastReply: undefined,
    autoCompactFailed: false,
    stopHookActive: false,
    background: [],
    emit,
    model: "",
  };
}

/** The whole transcript: the record before the last summary, then what the model sees. */
export function transcriptOf(state: RunState): TranscriptEntry[] {
  return rejoinTranscript(state.base, state.messages);
}

/** Counts a model call made for the run besides its conversation (a prompt or agent hook's): priced
 * and added to the total, not listed in `turns` (which count the conversation's calls). */
export function recordSideCall(state: RunState, model: string, usage: Usage): void {
  recordBilled(state, model, pricedUsage(model, usage), true);
}

/** Counts a call of `model`, its usage already priced (a call given up on mid-stream), in the
 * total and the spend, and reports it (call.completed); `side`: made beside the conversation. */
export function recordBilled(state: RunState, model: string, usage: Usage, side = false): void {
  addUsage(state.usage, usage);
  // Reported as it is billed, so that the figures move while the run goes; a sub-agent's usage
  // joins its parent's later without being reported again.
  state.emit(side ? { type: "call.completed", side, usage: { ...usage } } : { type: "call.completed", usage: { ...usage } });
  state.spend.usd += usage.costUsd ?? 0;
  state.spend.calls += 1;
  addUsage((state.spend.byModel[model] ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }), usage);
}

/** Counts one model call the run made itself: priced, added to the total and listed in `turns`. */
export function recordTurn(state: RunState, model: string, usage: Usage): Usage {
  const priced = pricedUsage(model, usage);
  state.turns.push(priced);
  recordBilled(state, model, priced);
  return priced;
}

/** Replaces the conversation with a compacted transcript. */
export function replaceTranscript(state: RunState, transcript: readonly TranscriptEntry[]): void {
  state.base = transcript;
  state.messages = contextMessages(transcript);
  state.lastRequestTokens = undefined;
  state.lastRequestMessages = undefined;
  state.promptAt = undefined;
}

/** Adds what a main run spent, its sub-agents included, to its conversation's (see /cost). */
export function countInConversation(resources: AgentResources, state: RunState): void {
  const spent = resourceInternals(resources).spent;
  addUsage(spent.usage, state.usage);
  spent.calls += state.spend.calls;
  spent.apiMs += state.spend.apiMs;
}
