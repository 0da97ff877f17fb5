// Reasoning models served without a reasoning parser (Ollama's and vLLM's qwen3, deepseek-r1, QwQ)
// write their reasoning into the reply's content, between <think> and </think>, before the answer.
// Such a reply's leading <think> block is taken as thinking, as a reasoning_content field would be;
// <think> anywhere else is the reply's own text.
//
// A chat template may open the block itself, in the prompt (DeepSeek-R1's, Qwen3's on vLLM or
// llama.cpp): the reply then starts with the reasoning and only closes it, with </think> on a line
// of its own. Such a reply cannot be told apart from an answer until that tag comes, and a reply
// is not held back on the chance of it (a reply that never has one would not stream at all): its
// text streams as text, and when </think> comes at a line's start, before any <think> or tool
// call, the text streamed so far is withdrawn (`withdraw`) and becomes thinking. What it costs an
// ordinary reply: a piece that ends in what could begin </think> ("<", "</th") waits for the next.

const OPEN = "<think>";
const CLOSE = "</think>";

/** `start`: nothing but whitespace yet; `open`, `thinking`: inside the leading block, before and
 * after its first non-space; `lead`: after it, before the answer's first non-space; `unopened`:
 * text that a </think> may yet show to be thinking; `text`: the rest, passed through. `tail`: the
 * end of the text passed on in `unopened` (a tag may begin in it). */
export type ThinkTags = { mode: "start" | "open" | "thinking" | "lead" | "unopened" | "text"; held: string; tail: string };

/** `withdraw`: the text passed on before this piece was thinking; it comes first in `thinking`'s
 * place, before `thinking`. */
export type ContentSplit = { thinking: string; text: string; withdraw?: true };

export function createThinkTags(): ThinkTags {
  return { mode: "start", held: "", tail: "" };
}

/** What `piece` of content adds to the thinking and to the text; a piece of a tag is held until
 * the next piece says what it is. */
export function splitContent(tags: ThinkTags, piece: string): ContentSplit {
  let thinking = "";
  let text = "";
  let withdraw = false;
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
        tags.mode = "unopened";
        rest = buffer;
      }
      continue;
    }
    if (tags.mode === "unopened") {
      const closed = unopenedClose(tags.tail, buffer);
      if (closed === "text") {
        tags.mode = "text";
        rest = buffer;
        continue;
      }
      if (closed !== undefined) {
        // Everything before the tag was thinking: what was passed on, and what this piece adds.
        withdraw = true;
        thinking = text + buffer.slice(0, closed);
        text = "";
        tags.mode = "lead";
        tags.tail = "";
        rest = buffer.slice(closed + CLOSE.length);
        continue;
      }
      const partial = partialTagAtEnd(buffer);
      const passed = buffer.slice(0, buffer.length - partial);
      text += passed;
      tags.tail = (tags.tail + passed).slice(-OPEN.length);
      tags.held = buffer.slice(buffer.length - partial);
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
  return withdraw ? { thinking, text, withdraw } : { thinking, text };
}

/** The content held when the reply ends or turns to something else (a tool call): text, or the
 * thinking's. Unopened thinking can no longer close after it. */
export function flushContent(tags: ThinkTags): ContentSplit {
  const held = tags.held;
  tags.held = "";
  if (tags.mode === "thinking") return { thinking: held, text: "" };
  if (tags.mode === "start" || tags.mode === "unopened") tags.mode = "text";
  return { thinking: "", text: tags.mode === "text" ? held : "" };
}

/** Where in `buffer` a </think> closes thinking that was never opened: at a line's start (after a
 * newline, or with nothing passed on before it), with no <think> before it (one makes the reply's
 * tags its own text: "text"). `tail`: the end of what was passed on before `buffer`. */
function unopenedClose(tail: string, buffer: string): number | "text" | undefined {
  const scan = tail + buffer;
  const open = scan.indexOf(OPEN);
  for (let at = scan.indexOf(CLOSE, tail.length); at !== -1; at = scan.indexOf(CLOSE, at + 1)) {
    if (open !== -1 && open < at) return "text";
    if (at === 0 || scan[at - 1] === "\n") return at - tail.length;
  }
  return open === -1 ? undefined : "text";
}

/** How many characters at the end of `buffer` could begin </think>. */
function partialTagAtEnd(buffer: string): number {
  for (let n = Math.min(CLOSE.length - 1, buffer.length); n > 0; n--) {
    if (CLOSE.startsWith(buffer.slice(buffer.length - n))) return n;
  }
  return 0;
}
