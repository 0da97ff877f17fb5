// The `!` shell commands of a slash command's or skill's text, which run as it expands.

/** A `!` command written inline (!`cmd`, at the start of a line or after a space; the space is
 * group 1, the command group 2), and one written as a ```! fenced block (group 1). */
export const SHELL_INLINE = /(^|\s)!`([^`\n]+)`/gm;
export const SHELL_BLOCK = /^```!\s*\n([\s\S]*?)\n```/gm;

/** The shell commands of `body` that run while it expands: inline !`cmd` and ```! blocks. */
export function shellCommands(body: string): string[] {
  const found: string[] = [];
  for (const match of body.matchAll(SHELL_BLOCK)) found.push((match[1] as string).trim());
  for (const match of body.matchAll(SHELL_INLINE)) found.push((match[2] as string).trim());
  return found;
}
