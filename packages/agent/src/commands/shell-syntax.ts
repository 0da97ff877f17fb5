// The `!` shell commands of a slash command's or skill's text, which run as it expands.

/** A `!` command written inline (!`cmd`, at the start of a line or after a space; the space is
 * group 1, the command group 2), and one written as a ```! fenced block (group 1). */
export const SHELL_INLINE = /(^|\s)!`([^`\n]+)`/gm;
export const SHELL_BLOCK = /^```!\s*\n([\s\S]*?)\n```/gm;

/** What an argument's backticks and line breaks are held as, in a text whose `!` commands are yet
 * to be found: a private-use character no command syntax knows, then one that says which. The
 * first is held too, so that an argument that has it gets it back as typed. */
const HOLD = "\uE000";
const HELD = ["`", "\n", HOLD] as const;

/** `value` (an argument put into a body that has `!` commands) with its backticks and line breaks
 * held, so that the commands are found as the body wrote them: an argument can neither end one
 * early nor start one of its own. releaseArguments gives them back, once the commands are found. */
export function holdArgument(value: string): string {
  return value.replace(/[`\n\uE000]/g, (char) => HOLD + String.fromCharCode(0xe001 + HELD.indexOf(char as (typeof HELD)[number])));
}

/** `text` with what holdArgument held given back. */
export function releaseArguments(text: string): string {
  return text.replace(/\uE000([\uE001-\uE003])/g, (_held, which: string) => HELD[which.charCodeAt(0) - 0xe001] as string);
}

/** The shell commands of `body` that run while it expands: inline !`cmd` and ```! blocks. */
export function shellCommands(body: string): string[] {
  const found: string[] = [];
  for (const match of body.matchAll(SHELL_BLOCK)) found.push((match[1] as string).trim());
  for (const match of body.matchAll(SHELL_INLINE)) found.push((match[2] as string).trim());
  return found;
}
