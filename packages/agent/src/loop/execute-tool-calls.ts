import { isBlankText, type TextBlock, type ToolResultBlock, type ToolUseBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { untilAborted } from "../harness/abortable.ts";
import { EMPTY_RESULT, FAILED_WITHOUT_OUTPUT } from "../mcp/tool-result.ts";
import { backgroundLatch } from "./background-latch.ts";
import { callAccess, mustWaitFor } from "./tool-call-order.ts";
import { createOutputStream } from "./tool-output-stream.ts";
import { prepareToolCall, type PreparedCall, type ToolLookup } from "./tool-input.ts";
import { toolResult } from "./transcript.ts";
import { truncateOutput } from "../truncate.ts";
import type { Tool, ToolContext, ToolOutput } from "../types.ts";

/** The tool_result text of a call that the user's cancel cut short. */
export const INTERRUPTED = "Interrupted by user";

/** What happens around each valid call: hooks and the permission check before it, hooks and
 * reminders after it. */
export type ToolGate = {
  /** The arguments to run the tool with, or the result to answer with instead of running it;
   * `notes` (a PreToolUse hook's additional context) go with the tool_result either way. Before a
   * call is put to the user, `precheck` (Tool.precheck) says whether it would fail anyway: then it
   * fails (`failed`) without being asked, as Claude Code validates a call's input first. */
  before(
    call: ToolUseBlock,
    tool: Tool,
    args: unknown,
    signal: AbortSignal,
    where?: string,
    precheck?: (args: unknown) => Promise<string | undefined>,
  ): Promise<({ run: true; args: unknown } | { run: false; output: ToolOutput; failed?: true }) & { notes?: string[] }>;
  /** Text for the model to add to the tool_result of a call that ran (hook feedback, reminders),
   * and the output to give in place of the tool's when a hook replaced it. `where`, in both: the
   * directory the call's relative paths start from (ToolRunContext.workingDir). */
  after(call: ToolUseBlock, tool: Tool, args: unknown, output: ToolOutput, signal: AbortSignal, where?: string): Promise<{ notes: string[]; output?: ToolOutput }>;
};

export type ToolRunContext = {
  tools: ToolLookup;
  cwd: string;
  /** Where a call's relative paths start, read as it starts (the agent's shell directory, as
   * Bash's `cd` left it): the tool runs with it as its cwd, and the gate checks the paths it will
   * use. Default: `cwd`. */
  workingDir?: () => string;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** Without a gate every valid call runs. */
  gate?: ToolGate;
  /** Requests to stop the sub-agent of one call (RunAgentOptions.onStopAgent), for Tool.stopsAlone calls. */
  onStopAgent?: (listener: (toolUseId: string) => boolean) => () => void;
  /** Completes the context each tool runs with (tool state, environment, sub-agents). */
  bindContext?: (ctx: ToolContext) => ToolContext;
  /** Awaited before a tool that is not read-only runs, with the call's id (RunAgentOptions.beforeChanges,
   * which runAgent makes never reject). */
  beforeChanges?: (toolUseId?: string) => Promise<void>;
  /** Calls whose input the model garbled, by id: answered with the error, never run. */
  inputErrors?: ReadonlyMap<string, string>;
};

/** `denied`: the gate refused the call (it did not run). */
type Finished = { output: ToolOutput; notes: string[]; denied?: true };

/** Runs the calls of one assistant reply concurrently, except that a call starts only after the
 * earlier calls it depends on (tool-call-order.ts). Each call's tool.completed is emitted as it
 * finishes; the results come back in the order of `calls`. Never rejects. */
export function executeToolCalls(calls: readonly ToolUseBlock[], run: ToolRunContext): Promise<ToolResultBlock[]> {
  const prepared = calls.map((call): PreparedCall => {
    const inputError = run.inputErrors?.get(call.id);
    return inputError !== undefined ? { ok: false, error: inputError } : prepareToolCall(run.tools, call.name, call.input);
  });
  const where = run.workingDir?.() ?? run.cwd;
  const accesses = prepared.map((p) => (p.ok ? callAccess(p.tool, p.args, where) : undefined));
  const results: Promise<ToolResultBlock>[] = [];
  calls.forEach((call, index) => {
    const waits = mustWaitFor(accesses, index).map((i) => results[i]);
    const start = () => runToolCall(call, run, prepared[index]);
    results.push(waits.length === 0 ? start() : Promise.all(waits).then(start));
  });
  return Promise.all(results);
}

async function runToolCall(call: ToolUseBlock, run: ToolRunContext, prepared: PreparedCall): Promise<ToolResultBlock> {
  let finished: Finished;
  const stream = createOutputStream(call.id, run.emit);
  try {
    // Resolves with INTERRUPTED as soon as the signal fires, so that a tool (or an approval) that
    // ignores its signal cannot hold a cancelled run open.
    finished = (await untilAborted(prepareAndRun(call, run, prepared, stream.push), run.signal)) ?? { output: { content: INTERRUPTED, isError: true }, notes: [] };
  } catch (error) {
    finished = { output: { content: `Error: ${error instanceof Error ? error.message : String(error)}`, isError: true }, notes: [] };
  }
  // Its output streamed so far gives way to its result: nothing of it comes after tool.completed.
  stream.close();
  return finalizeToolCall(call.id, finished, run.emit, prepared.ok ? prepared.tool.maxOutputChars : undefined);
}

/** `prepared`: the call's arguments checked, or why it cannot run (its input garbled or invalid). */
async function prepareAndRun(call: ToolUseBlock, run: ToolRunContext, prepared: PreparedCall, progress: (text: string) => void): Promise<Finished> {
  // A call that waited for earlier ones may find the run cancelled: it asks and runs nothing.
  if (run.signal.aborted) return { output: { content: INTERRUPTED, isError: true }, notes: [] };
  if (!prepared.ok) return { output: { content: prepared.error, isError: true }, notes: [] };
  const cwd = run.workingDir?.() ?? run.cwd;
  const base: ToolContext = { cwd, signal: run.signal, toolUseId: call.id, progress };
  if (!prepared.tool.stopsAlone || !run.onStopAgent) return bindAndRun(call, run, prepared.tool, prepared.args, base, cwd);
  // Listening from the call's start, as for a move to the background (bindAndRun).
  const stop = new AbortController();
  const unsubscribe = run.onStopAgent((id) => id === call.id && (stop.abort(), true));
  try {
    return await bindAndRun(call, run, prepared.tool, prepared.args, { ...base, agentStopped: stop.signal }, cwd);
  } finally {
    unsubscribe();
  }
}

/** The call run with the context the host completes (ToolRunContext.bindContext). */
async function bindAndRun(call: ToolUseBlock, run: ToolRunContext, tool: Tool, args: unknown, base: ToolContext, cwd: string): Promise<Finished> {
  const { onBackground, ...bound } = run.bindContext ? run.bindContext(base) : base;
  if (!tool.backgroundable || !onBackground) return checkAndRun(call, run, tool, args, bound, cwd);
  // Listening from the call's start: a request sent while it is checked is kept for the tool.
  const latch = backgroundLatch(onBackground);
  try {
    return await checkAndRun(call, run, tool, args, { ...bound, onBackground: latch.onBackground }, cwd);
  } finally {
    latch.stop();
  }
}

/** The gate's checks, the checkpoint, the tool, and the gate's after. */
async function checkAndRun(call: ToolUseBlock, run: ToolRunContext, tool: Tool, checked: unknown, ctx: ToolContext, cwd: string): Promise<Finished> {
  let args = checked;
  let early: string[] = [];
  if (run.gate) {
    const verdict = await run.gate.before(call, tool, args, run.signal, cwd, (input) => precheck(tool, input, ctx));
    early = verdict.notes ?? [];
    if (!verdict.run) return { output: verdict.output, notes: early, ...(!verdict.failed && { denied: true as const }) };
    args = verdict.args;
  }
  if (!tool.readOnly && run.beforeChanges) await run.beforeChanges(call.id);
  const output = await executeTool(tool, args, ctx);
  const after = run.gate && !run.signal.aborted ? await run.gate.after(call, tool, args, output, run.signal, cwd) : { notes: [] };
  return { output: after.output ?? output, notes: [...early, ...after.notes] };
}

/** Tool.precheck's answer; a precheck that throws stops nothing (the tool reports it as it runs). */
async function precheck(tool: Tool, args: unknown, ctx: ToolContext): Promise<string | undefined> {
  if (!tool.precheck) return undefined;
  try {
    return await tool.precheck(args, ctx);
  } catch {
    return undefined;
  }
}

async function executeTool(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  if (ctx.signal.aborted) return { content: INTERRUPTED, isError: true };
  try {
    return await tool.execute(args, ctx);
  } catch (error) {
    return { content: `Error: ${error instanceof Error ? error.message : String(error)}`, isError: true };
  }
}

/** A tool's output as text. Tools written in plain JavaScript may hand back something else than
 * the string their type promises. */
export function outputText(output: ToolOutput): string {
  return typeof output.content === "string" ? output.content : String(output.content);
}

/** The tool_result for the model: the output's blocks (images) or its text, cut to size, then the
 * notes. The event carries the output's text only. */
function finalizeToolCall(toolUseId: string, { output, notes, denied }: Finished, emit: (event: AgentEvent) => void, limit?: number): ToolResultBlock {
  const isError = output.isError === true;
  const text = outputText(output);
  // The model API refuses an error result without content, and any blank text block.
  const content = isBlankText(text) ? (isError ? FAILED_WITHOUT_OUTPUT : EMPTY_RESULT) : truncateOutput(text, limit);
  emit({ type: "tool.completed", toolUseId, output: content, isError, ...(denied && { denied }) });
  if (output.blocks && output.blocks.length > 0) {
    const blocks = output.blocks
      .filter((block) => block.type !== "text" || !isBlankText(block.text))
      .map((block) => (block.type === "text" ? { type: "text" as const, text: truncateOutput(block.text, limit) } : block));
    return toolResult(toolUseId, [...blocks, ...notes.map((text): TextBlock => ({ type: "text", text }))], isError);
  }
  return toolResult(toolUseId, notes.length === 0 ? content : [content, ...notes].join("\n\n"), isError);
}
