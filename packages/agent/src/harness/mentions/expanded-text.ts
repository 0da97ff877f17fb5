// A prompt with what its mentions brought (files.ts, mcp-resources.ts): the text the
// model gets, and the images read for it, which go into the same user message after the text (or
// into the Skill tool's result), since a picture cannot be put into text.
import type { ToolAttachment } from "../../types.ts";
import type { CommandCallResult } from "../commands/calls.ts";

export type ExpandedText = { text: string; images: ToolAttachment[] };

/** `text` followed by each read's contents, or why it was not read; an image read is said to be
 * attached, and comes back in `images`. */
export function attached(text: string, reads: readonly (CommandCallResult & { mention: string; shown: string })[]): ExpandedText {
  const images: ToolAttachment[] = [];
  const parts = reads.map(({ text: content, isError, images: loaded, mention, shown }) => {
    if (isError) return `(${mention} was not read: ${content})`;
    images.push(...loaded);
    const note = loaded.length === 0 ? "" : `[${attachedWhat(loaded)} below]`;
    return `Contents of ${shown}:\n${[content, note].filter((part) => part.trim() !== "").join("\n")}`;
  });
  return { text: `${text}\n\n${parts.join("\n\n")}`, images };
}

function attachedWhat(loaded: readonly ToolAttachment[]): string {
  if (loaded.every((block) => block.type === "document")) return loaded.length === 1 ? "a PDF document, attached" : `${loaded.length} PDF documents, attached`;
  return loaded.length === 1 ? "an image, attached" : `${loaded.length} images, attached`;
}
