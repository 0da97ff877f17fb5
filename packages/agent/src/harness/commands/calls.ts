// Tool calls a slash command makes as it expands (its `!` commands, the files it names): run as the
// model's calls are, through the same gate, and shown to the user as tool calls.
import { randomUUID } from "node:crypto";
import type { ToolResultBlock } from "@harness/llm";
import { executeToolCalls } from "../../loop/execute-tool-calls.ts";
import type { ToolAttachment } from "../../types.ts";
import type { RunContext } from "../run-context.ts";
import { toolRunFor } from "../run-context.ts";
import type { RunState } from "../run-state.ts";

/** `images`: what the call loaded that its text does not hold (Read of a picture or a PDF). */
export type CommandCallResult = { text: string; isError: boolean; images: ToolAttachment[] };

/** Runs the calls (together, as one reply's would run) and returns each one's text, in order. */
export async function runCommandCalls(ctx: RunContext, state: RunState, calls: readonly { name: string; input: Record<string, unknown> }[]): Promise<CommandCallResult[]> {
  // Unique among the run's calls: two skills may expand at once (two Skill calls of one reply).
  const stamp = randomUUID().slice(0, 8);
  const uses = calls.map((call, i) => ({ type: "tool_use" as const, id: `command_${stamp}_${i}`, name: call.name, input: call.input }));
  for (const use of uses) {
    state.started.add(use.id);
    state.emit({ type: "tool.started", toolName: use.name, toolUseId: use.id, input: use.input });
  }
  // A tool a deny rule keeps from the model is still found here: the gate refuses it by that rule.
  const run = toolRunFor(ctx, state);
  const tools = { ...run.tools, get: (name: string) => run.tools.get(name) ?? ctx.withheld.find((tool) => tool.name === name) };
  const results = await executeToolCalls(uses, { ...run, tools });
  return results.map((result) => ({ text: textOf(result), isError: result.is_error === true, images: imagesOf(result) }));
}

function imagesOf(result: ToolResultBlock): ToolAttachment[] {
  if (typeof result.content === "string") return [];
  return result.content.flatMap((part): ToolAttachment[] => {
    if (part.type === "image" && part.source.type === "base64") return [{ type: "image", source: part.source }];
    return part.type === "document" ? [{ type: "document", source: part.source }] : [];
  });
}

function textOf(result: ToolResultBlock): string {
  return typeof result.content === "string" ? result.content : result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}
