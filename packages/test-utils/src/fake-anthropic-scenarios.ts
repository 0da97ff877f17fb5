// Reply scripts for the common cases, so tests state intent rather than wire details.
import type { FakeReply } from "./fake-anthropic-types.ts";

/** The model calls one tool, then answers with text once it has the tool's result. */
export function toolThenText(toolName: string, input: Record<string, unknown>, finalText: string): FakeReply[] {
  return [{ toolUses: [{ name: toolName, input }] }, { text: finalText }];
}

/** A plain text answer streamed as one delta per word (spaces kept), as a model would. */
export function textInWords(text: string): FakeReply {
  return { text: text.match(/\S+\s*|\s+/g) ?? [] };
}
