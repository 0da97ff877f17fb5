// Reply scripts for the common cases, so tests state intent rather than wire details.
import type { FakeReply, RecordedRequest } from "./fake-anthropic-types.ts";

/** The model calls one tool, then answers with text once it has the tool's result. */
export function toolThenText(toolName: string, input: Record<string, unknown>, finalText: string): FakeReply[] {
  return [{ toolUses: [{ name: toolName, input }] }, { text: finalText }];
}

/** A plain text answer streamed as one delta per word (spaces kept), as a model would. */
export function textInWords(text: string): FakeReply {
  return { text: text.match(/\S+\s*|\s+/g) ?? [] };
}

/** A `route` for driving Claude Code: its housekeeping requests (title generation on a small
 * model, quota probes) offer no tools, while every turn of the conversation itself, sub-agents'
 * included, offers Claude Code's tools. */
export function claudeCodeRoute(request: RecordedRequest): "main" | "side" {
  const tools = (request.body as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0 ? "main" : "side";
}
