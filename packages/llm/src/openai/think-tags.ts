// Reasoning models served without a reasoning parser (Ollama's and vLLM's qwen3, deepseek-r1, QwQ)
// write their reasoning into the reply's content, between <think> and </think>, before the answer.
// Such a reply's leading <think> block is taken as thinking, as a reasoning_content field would be;
// <think> anywhere else is the reply's own text.
//
// A chat template may open the block itself, in the prompt (DeepSeek-R1's, Qwen3's on vLLM or
// llama.cpp): the reply then starts with the reasoning and only closes it, with </think> on a line
// of its own. Such a reply cannot be told apart from an answer until that tag comes, and a reply
// is not held back on the chance of it (a reply that never has one would not stream at all): its
// text streams as text, and when </think> comes on a line of its own, outside a fenced code block,
// before any <think> or tool call, the text streamed so far is withdrawn (`withdraw`) and becomes
// thinking. What it costs an ordinary reply: a piece that ends in a line that could yet be that
// tag's ("<", "</th", "</think>") waits for the next.

const OPEN = "<think>";
const CLOSE = "</think>";

/** `start`: nothing but whitespace yet; `open`, `thinking`: inside the leading block, before and
 * after its first non-space; `lead`: after it, before the answer's first non-space; `unopened`:
 * text that a </think> may yet show to be thinking; `text`: the rest, passed through. Of the text
 * passed on in `unopened`: `tail`, its end (a <think> may begin in it); `line`, the start of its
 * last line, "" at a line's start; `fence`, the character of the code fence it is inside ("`" or
 * "~"), else "". `leadingOnly`: only a leading <think> block is thinking, never text a lone
 * </think> closes (a server that parses reasoning into a field of its own leaves none unopened). */
export type ThinkTags = { mode: "start" | "open" | "thinking" | "lead" | "unopened" | "text"; held: string; tail: string; line: string; fence: string; leadingOnly?: boolean };

/** `withdraw`: the text passed on before this piece was thinking; it comes first in `thinking`'s
 * place, before `thinking`. */
export type ContentSplit = { thinking: string; text: string; withdraw?: true };

export function createThinkTags(): ThinkTags {
  return { mode: "start", held: "", tail: "", line: "", fence: "" };
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
        tags.mode = tags.leadingOnly ? "text" : "unopened";
        rest = buffer;
      }
      continue;
    }
    if (tags.mode === "unopened") {
      const found = unopenedClose(tags, buffer);
      if (found === "text") {
        tags.mode = "text";
        rest = buffer;
        continue;
      }
      if ("close" in found) {
        // Everything before the tag was thinking: what was passed on, and what this piece adds.
        withdraw = true;
        thinking = text + buffer.slice(0, found.close);
        text = "";
        tags.mode = "lead";
        tags.tail = "";
        rest = buffer.slice(found.close + CLOSE.length);
        continue;
      }
      const passed = buffer.slice(0, found.hold);
      text += passed;
      tags.tail = (tags.tail + passed).slice(-OPEN.length);
      tags.held = buffer.slice(found.hold);
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
  // The reply ends the tag's line: all it said was thinking.
  if (tags.mode === "unopened" && CLOSE_LINE.test(held)) {
    tags.mode = "text";
    return { thinking: "", text: "", withdraw: true };
  }
  if (tags.mode === "start" || tags.mode === "unopened") tags.mode = "text";
  return { thinking: "", text: tags.mode === "text" ? held : "" };
}

/** A line that is </think> and nothing else but blanks. */
const CLOSE_LINE = /^<\/think>[ \t\r]*$/;
/** A line that opens or closes a fenced code block (its start is enough: `line` keeps no more). */
const FENCE = /^ {0,3}(`{3}|~{3})/;

/** Where in `buffer` a </think> closes thinking that was never opened (`close`): on a line of its
 * own, outside a fenced code block, with no <think> before it (one makes the reply's tags its own
 * text: "text"). Else how much of `buffer` passes on (`hold`): all but a line that could yet be
 * the tag's; `tags` then tells the line and fence where it stops. */
function unopenedClose(tags: ThinkTags, buffer: string): "text" | { close: number } | { hold: number } {
  const openAt = (tags.tail + buffer).indexOf(OPEN);
  const opened = openAt === -1 ? Infinity : openAt - tags.tail.length;
  let { line, fence } = tags;
  for (let at = 0; at < buffer.length; ) {
    const newline = buffer.indexOf("\n", at);
    const end = newline === -1 ? buffer.length : newline + 1;
    const segment = buffer.slice(at, newline === -1 ? end : newline);
    if (line === "" && fence === "" && (segment.startsWith(CLOSE) || CLOSE.startsWith(segment))) {
      if (opened < at) return "text";
      if (newline !== -1 && CLOSE_LINE.test(segment)) return { close: at };
      if (newline === -1 && (CLOSE.startsWith(segment) || CLOSE_LINE.test(segment))) {
        tags.line = line;
        tags.fence = fence;
        return { hold: at };
      }
    }
    line = (line + segment).slice(0, 8);
    if (newline !== -1) {
      const marker = FENCE.exec(line)?.[1]?.[0];
      if (marker !== undefined && (fence === "" || fence === marker)) fence = fence === "" ? marker : "";
      line = "";
    }
    at = end;
  }
  if (opened !== Infinity) return "text";
  tags.line = line;
  tags.fence = fence;
  return { hold: buffer.length };
}

/** How many characters at the end of `buffer` could begin </think>. */
function partialTagAtEnd(buffer: string): number {
  for (let n = Math.min(CLOSE.length - 1, buffer.length); n > 0; n--) {
    if (CLOSE.startsWith(buffer.slice(buffer.length - n))) return n;
  }
  return 0;
}
