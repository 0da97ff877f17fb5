// The `!` shell commands of a slash command's or skill's text, which run as it expands.

/** A `!` command written inline (!`cmd`, at the start of a line or after a space; the space is
 * group 1, the command group 2), and one written as a ```! fenced block (group 1). */
export const SHELL_INLINE = /(^|\s)!`([^`\n]+)`/gm;
export const SHELL_BLOCK = /^```!\s*\n([\s\S]*?)\n```/gm;

/** What an argument's backticks and line breaks are held as, in a text whose `!` commands are yet
 * to be found: private-use characters no command syntax knows. */
const HELD: readonly (readonly [string, string])[] = [
  ["`", "\uE000"],
  ["\n", "\uE001"],
];

/** `value` (an argument put into a body that has `!` commands) with its backticks and line breaks
 * held, so that the commands are found as the body wrote them: an argument can neither end one
 * early nor start one of its own. releaseArguments gives them back, once the commands are found. */
export function holdArgument(value: string): string {
  let held = value;
  for (const [char, mark] of HELD) held = held.replaceAll(char, mark);
  return held;
}

/** `text` with what holdArgument held given back. */
export function releaseArguments(text: string): string {
  let released = text;
  for (const [char, mark] of HELD) released = released.replaceAll(mark, char);
  return released;
}

/** The shell commands of `body` that run while it expands: inline !`cmd` and ```! blocks. */
export function shellCommands(body: string): string[] {
  const found: string[] = [];
  for (const match of body.matchAll(SHELL_BLOCK)) found.push((match[1] as string).trim());
  for (const match of body.matchAll(SHELL_INLINE)) found.push((match[2] as string).trim());
  return found;
}
