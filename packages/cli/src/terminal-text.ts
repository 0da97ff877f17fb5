// Text as a terminal shows it: without the control characters that would act on it, and cut to a
// number of its columns (wide characters take two).
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

export function columns(char: string): number {
  return ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
}

/** `text` cut to `max` columns of a terminal (a line of Chinese is half as many characters as
 * one of ASCII; an emoji is never split), with "…" when cut. */
export function cut(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.reduce((sum, char) => sum + columns(char), 0) <= max) return text;
  let kept = "";
  let used = 0;
  for (const char of chars) {
    used += columns(char);
    if (used > max - 1) break;
    kept += char;
  }
  return `${kept}…`;
}
