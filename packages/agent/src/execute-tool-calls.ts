import type { ToolResultBlock, ToolUseBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { prepareToolCall } from "./tool-input.ts";
import { toolResult } from "./transcript.ts";
import { truncateOutput } from "./truncate.ts";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";

/** The tool_result text of a call that the user's cancel cut short. */
export const INTERRUPTED = "Interrupted by user";

export type ToolRunContext = {
  tools: ReadonlyMap<string, Tool>;
  cwd: string;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
};

/** Runs every call of one assistant reply concurrently. Each call's tool.completed is emitted as it
 * finishes; the results come back in the order of `calls`. Never rejects. */
export function executeToolCalls(calls: readonly ToolUseBlock[], run: ToolRunContext): Promise<ToolResultBlock[]> {
  return Promise.all(calls.map((call) => runToolCall(call, run)));
}

async function runToolCall(call: ToolUseBlock, run: ToolRunContext): Promise<ToolResultBlock> {
  const prepared = prepareToolCall(run.tools, call.name, call.input);
  const output = prepared.ok
    ? await executeTool(prepared.tool, prepared.args, { cwd: run.cwd, signal: run.signal, toolUseId: call.id })
    : { content: prepared.error, isError: true };
  return finalizeToolCall(call.id, output, run.emit);
}

async function executeTool(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  if (ctx.signal.aborted) return { content: INTERRUPTED, isError: true };
  try {
    return await settleOnAbort(tool.execute(args, ctx), ctx.signal);
  } catch (error) {
    return { content: `Error: ${error instanceof Error ? error.message : String(error)}`, isError: true };
  }
}

/** The tool's result, or INTERRUPTED as soon as the signal fires, so that a tool which ignores its
 * signal cannot hold a cancelled run open. */
function settleOnAbort(work: Promise<ToolOutput>, signal: AbortSignal): Promise<ToolOutput> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve({ content: INTERRUPTED, isError: true });
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (output) => {
        signal.removeEventListener("abort", onAbort);
        resolve(output);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function finalizeToolCall(toolUseId: string, output: ToolOutput, emit: (event: AgentEvent) => void): ToolResultBlock {
  const content = truncateOutput(typeof output.content === "string" ? output.content : String(output.content));
  const isError = output.isError === true;
  emit({ type: "tool.completed", toolUseId, output: content, isError });
  return toolResult(toolUseId, content, isError);
}
