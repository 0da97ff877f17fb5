// The hooks around a user's prompt and the end of a reply: SessionStart and InstructionsLoaded
// (once per conversation's resources), UserPromptSubmit (each prompt), Stop / SubagentStop (when
// the model is done), and SessionEnd (when the resources are disposed or /clear runs).
import type { ModelErrorInfo, TextBlock } from "@harness/llm";
import { systemReminder } from "../../context/format-memory.ts";
import { textOf, withUserText } from "../../loop/transcript.ts";
import type { MemoryFile } from "../../context/types.ts";
import type { HookHost } from "./hooks.ts";
import { instructionsLoaded } from "./instructions-loaded.ts";
import { resourceInternals, type AgentResources } from "../resources.ts";
import type { RunContext } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

export type Submission = { ok: true; context: TextBlock[] } | { ok: false; reason: string };

/** Runs SessionStart (the first time for these resources: "startup" for a new conversation,
 * "resume" for one with history) and UserPromptSubmit. Their additional context comes back as
 * system-reminder blocks for the user message; a block or `continue: false` comes back as the
 * reason the prompt is not sent. */
export async function submitPrompt(hooks: HookHost, resources: AgentResources, prompt: string, resumed: boolean, signal: AbortSignal, memory: MemoryAtStart): Promise<Submission> {
  const context: TextBlock[] = [];
  const inner = resourceInternals(resources);
  if (!inner.sessionStarted) {
    inner.sessionStarted = true;
    const started = await startSession(hooks, resumed ? "resume" : "startup", signal, memory);
    if (!started.ok) return started;
    context.push(...started.context);
  }
  const submitted = await hooks.run("UserPromptSubmit", { prompt }, signal);
  if (!submitted.continue) return { ok: false, reason: submitted.stopReason ?? "A UserPromptSubmit hook stopped the run." };
  if (submitted.blocked) return { ok: false, reason: submitted.blockReason ?? "A UserPromptSubmit hook blocked the prompt." };
  for (const text of submitted.additionalContext) context.push(reminderBlock("UserPromptSubmit", text));
  return { ok: true, context };
}

/** The memory files a conversation starts with, for its InstructionsLoaded hooks, and what the run
 * awaits at its end (they run beside it). */
export type MemoryAtStart = { files: readonly MemoryFile[]; track(work: Promise<unknown>): void };

/** The memory files of a run's setup, their hooks' work awaited with the run's background work. */
export function memoryAtStart(files: readonly MemoryFile[], state: RunState): MemoryAtStart {
  return { files, track: (work) => state.background.push(work) };
}

/** Starts a conversation for the hooks, the first or one after /clear or a compaction: the
 * InstructionsLoaded hooks are told of each memory file (load_reason "compact" after a compaction,
 * else "session_start"), beside the run, and the SessionStart hooks of `source` run. This is the
 * one place the memory files a conversation starts with are told of (tool-gate.ts tells of those
 * that join later). */
export async function startSession(hooks: HookHost, source: "startup" | "resume" | "clear" | "compact", signal: AbortSignal, memory: MemoryAtStart): Promise<Submission> {
  memory.track(instructionsLoaded(hooks, memory.files, { reason: source === "compact" ? "compact" : "session_start" }, signal));
  const started = await hooks.run("SessionStart", { source }, signal);
  if (!started.continue) return { ok: false, reason: started.stopReason ?? "A SessionStart hook stopped the run." };
  return { ok: true, context: started.additionalContext.map((text) => reminderBlock("SessionStart", text)) };
}

/** Lets the resources run SessionEnd with `hooks` when they are disposed. By then no run listens:
 * give hooks whose notices go nowhere. */
export function registerSessionEnd(resources: AgentResources, hooks: HookHost): void {
  if (!hooks.has("SessionEnd")) {
    resourceInternals(resources).sessionEnd = undefined;
    return;
  }
  resourceInternals(resources).sessionEnd = async (reason) => {
    await hooks.run("SessionEnd", { reason }, new AbortController().signal);
  };
}

/** Runs the SubagentStart hooks of a sub-agent's run; their additional context comes back as
 * system-reminder blocks for its prompt. A sub-agent's start is not theirs to stop. */
export async function subagentStartContext(ctx: RunContext): Promise<TextBlock[]> {
  const agent = ctx.options.agent;
  if (!agent || !ctx.hooks.has("SubagentStart")) return [];
  const started = await ctx.hooks.run("SubagentStart", { agent_id: agent.id, agent_type: agent.type }, ctx.options.signal);
  return started.additionalContext.map((text) => reminderBlock("SubagentStart", text));
}

/** Runs the StopFailure hooks when the main agent's turn ends on a failed model request (a
 * sub-agent's failure is its Task call's result, not the end of the turn). Only to be told: what
 * they say is ignored. */
export async function stopFailureHooks(ctx: RunContext, state: RunState, message: string, error: ModelErrorInfo | undefined): Promise<void> {
  if (ctx.subagent || !ctx.hooks.has("StopFailure")) return;
  const reply = state.lastReply;
  const last = reply ? textOf(reply) : "";
  const fields = { error_type: error?.kind ?? "unknown", ...(error?.code !== undefined && { error: error.code }), error_message: message, ...(last && { last_assistant_message: last }) };
  await ctx.hooks.run("StopFailure", fields, ctx.options.signal);
}

/** Runs the Stop hooks (SubagentStop for a sub-agent) when the model is done. A hook that blocks
 * stopping keeps the run going: its reason goes to the model as the next user message, and the
 * next Stop input says `stop_hook_active: true`. */
export async function stopHookContinues(ctx: RunContext, state: RunState): Promise<boolean> {
  const event = ctx.subagent ? "SubagentStop" : "Stop";
  if (!ctx.hooks.has(event)) return false;
  const reply = state.messages.at(-1);
  // The text of the assistant message the model ended on, if it ended on one.
  const last = reply?.role === "assistant" ? textOf(reply) : undefined;
  const fields = { stop_hook_active: state.stopHookActive, ...(last !== undefined && { last_assistant_message: last }) };
  const agent = ctx.options.agent;
  const result = event === "SubagentStop"
    ? await ctx.hooks.run(event, { ...fields, agent_id: agent?.id ?? "", agent_type: agent?.type ?? "" }, ctx.options.signal)
    : await ctx.hooks.run(event, fields, ctx.options.signal);
  if (!result.continue || !result.blocked || ctx.options.signal.aborted) return false;
  state.stopHookActive = true;
  state.messages = withUserText(state.messages, `${event} hook feedback:\n${result.blockReason}`);
  return true;
}

/** A hook's additional context as the model reads it. */
export function reminderBlock(event: string, text: string): TextBlock {
  return { type: "text", text: systemReminder(`${event} hook additional context: ${text}`) };
}
