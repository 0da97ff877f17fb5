/** Whether a text asks for thinking as Claude Code reads it: the word "ultrathink", in a typed
 * prompt or in a command's or skill's text. */
export function asksToThink(text: string): boolean {
  return /\bultrathink\b/i.test(text);
}
