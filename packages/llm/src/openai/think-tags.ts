// Reasoning models served without a reasoning parser (Ollama's and vLLM's qwen3, deepseek-r1, QwQ)
// write their reasoning into the reply's content, between <think> and </think>, before the answer.
// Such a reply's leading <think> block is taken as thinking, as a reasoning_content field would be;
// <think> anywhere else is the reply's own text. A reply whose content starts with the reasoning
// and only closes it with </think> (a template that opened the tag in the prompt) cannot be told
// apart from an answer as it streams, and stays text.

const OPEN = "<think>";
const CLOSE = "</think>";

/** `start`: nothing but whitespace yet; `open`, `thinking`: inside the leading block, before and
 * after its first non-space; `lead`: after it, before the answer's first non-space; `text`: the
 * rest, passed through. */
export type ThinkTags = { mode: "start" | "open" | "thinking" | "lead" | "text"; held: string };

export function createThinkTags(): ThinkTags {
  return { mode: "start", held: "" };
}

/** What `piece` of content adds to the thinking and to the text; a piece of a tag is held until
 * the next piece says what it is. */
export function splitContent(tags: ThinkTags, piece: string): { thinking: string; text: string } {
  let thinking = "";
  let text = "";
  let rest = piece;
  while (rest !== "") {
    if (tags.mode === "text") {
      text += rest;
      break;
    }
    if (tags.mode === "open" || tags.mode === "lead") {
      rest = rest.trimStart();
      if (rest !== "") tags.mode = tags.mode === "open" ? "thinking" : "text";
      continue;
    }
    const buffer = tags.held + rest;
    tags.held = "";
    rest = "";
    if (tags.mode === "start") {
      const trimmed = buffer.trimStart();
      if (trimmed === "" || (trimmed.length < OPEN.length && OPEN.startsWith(trimmed))) {
        tags.held = buffer;
      } else if (trimmed.startsWith(OPEN)) {
        tags.mode = "open";
        rest = trimmed.slice(OPEN.length);
      } else {
        tags.mode = "text";
        rest = buffer;
      }
      continue;
    }
    const end = buffer.indexOf(CLOSE);
    if (end !== -1) {
      thinking += buffer.slice(0, end);
      tags.mode = "lead";
      rest = buffer.slice(end + CLOSE.length);
      continue;
    }
    const partial = partialTagAtEnd(buffer);
    thinking += buffer.slice(0, buffer.length - partial);
    tags.held = buffer.slice(buffer.length - partial);
  }
  return { thinking, text };
}

/** The content held when the reply ends or turns to something else: text, or the thinking's. */
export function flushContent(tags: ThinkTags): { thinking: string; text: string } {
  const held = tags.held;
  tags.held = "";
  if (tags.mode === "thinking") return { thinking: held, text: "" };
  if (tags.mode === "start") tags.mode = "text";
  return { thinking: "", text: tags.mode === "text" ? held : "" };
}

/** How many characters at the end of `buffer` could begin </think>. */
function partialTagAtEnd(buffer: string): number {
  for (let n = Math.min(CLOSE.length - 1, buffer.length); n > 0; n--) {
    if (CLOSE.startsWith(buffer.slice(buffer.length - n))) return n;
  }
  return 0;
}
