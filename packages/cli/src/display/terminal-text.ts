// Text as a terminal shows it: without the control characters that would act on it, and cut to a
// number of its columns. Columns are counted per grapheme cluster, what a terminal draws as one
// character: an emoji sequence (joined by ZWJ, a flag, a skin tone, a keycap, VS16) takes two, a
// letter with combining marks one, East Asian wide characters two. Plain ASCII text skips the
// segmenting (a long reply is counted often while it streams).
/** Control characters (escape sequences, carriage returns, bells) in text from tools or files
 * would act on the terminal (clear it, retitle it, overwrite lines): they are dropped, and so are
 * the C1 controls a terminal may read as ESC and a letter (CSI, OSC, DCS, …). */
export function printable(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
}

/** East Asian wide and full-width characters and emoji take two columns of a terminal. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}/u;
/** Combining marks, zero-width spaces and joiners, variation selectors: none. */
const ZERO_WIDTH = /[\p{M}\u200b-\u200f\u2060\ufe00-\ufe0f]/u;
/** What makes a cluster an emoji drawn in two columns: VS16, a keycap, a skin tone, a flag's pair of
 * regional indicators, or pictographs joined by ZWJ. */
const EMOJI_SEQUENCE = /\ufe0f|\u20e3|[\u{1f3fb}-\u{1f3ff}]|\p{Regional_Indicator}{2}|\p{Extended_Pictographic}\u200d/u;
/** Printable ASCII only: one column per character, one character per cluster. */
const ASCII = /^[\x20-\x7e]*$/;
const segmenter = new Intl.Segmenter();

/** The grapheme clusters of `text`, in order. */
export function clusters(text: string): string[] {
  if (ASCII.test(text)) return text.split("");
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** The columns `cluster` (one grapheme cluster, or one character) takes. */
export function columns(cluster: string): number {
  const first = cluster.codePointAt(0);
  if (first === undefined) return 0;
  if (first >= 0x20 && first < 0x7f && cluster.length === 1) return 1;
  return columnsOf(cluster, String.fromCodePoint(first));
}

function columnsOf(cluster: string, first: string): number {
  if (cluster.length > first.length && EMOJI_SEQUENCE.test(cluster)) return 2;
  return ZERO_WIDTH.test(first) ? 0 : WIDE.test(first) ? 2 : 1;
}

/** The columns `text` takes on one row. */
export function width(text: string): number {
  if (ASCII.test(text)) return text.length;
  let sum = 0;
  for (const { segment } of segmenter.segment(text)) sum += columns(segment);
  return sum;
}

/** `text` cut to `max` columns of a terminal (a line of Chinese is half as many characters as
 * one of ASCII; a cluster is never split), with "…" when cut. */
export function cut(text: string, max: number): string {
  if (ASCII.test(text)) return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
  if (width(text) <= max) return text;
  let kept = "";
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    used += columns(segment);
    if (used > max - 1) break;
    kept += segment;
  }
  return `${kept}…`;
}
