import { escapeRegExp } from "./tool-names.ts";

export type CommandMatcher = (command: string) => boolean;

/** Compiles a Bash rule specifier (Claude Code's syntax):
 * - `npm test` matches exactly that command;
 * - `npm test:*` matches `npm test` and `npm test …` (a word boundary: not `npm testing`);
 * - `*` matches any text, spaces included (`git * main`); `\*` is a literal star;
 * - a single trailing ` *` also matches the bare command with a word boundary: `ls *` matches
 *   `ls` and `ls -la`, not `lsof`.
 * Runs of whitespace in the specifier count as one space, as in the commands it is matched with. */
export function compileCommandPattern(specifier: string): CommandMatcher {
  const spec = specifier.trim().replace(/\s+/g, " ");
  const stars = countUnescapedStars(spec);
  if (spec.endsWith(":*") && stars === 1) {
    const prefix = unescapeStars(spec.slice(0, -2)).trimEnd();
    return (command) => command === prefix || command.startsWith(`${prefix} `);
  }
  if (stars === 0) {
    const exact = unescapeStars(spec);
    return (command) => command === exact;
  }
  if (stars === 1 && spec.endsWith(" *")) {
    const prefix = escapeRegExp(unescapeStars(spec.slice(0, -2)));
    const regex = new RegExp(`^${prefix}(?: .*)?$`, "s");
    return (command) => regex.test(command);
  }
  const regex = new RegExp(`^${wildcardToRegExp(spec)}$`, "s");
  return (command) => regex.test(command);
}

function countUnescapedStars(spec: string): number {
  let count = 0;
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === "\\") i++;
    else if (spec[i] === "*") count++;
  }
  return count;
}

function unescapeStars(text: string): string {
  return text.replace(/\\\*/g, "*");
}

function wildcardToRegExp(spec: string): string {
  let out = "";
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === "\\" && spec[i + 1] === "*") {
      out += "\\*";
      i++;
    } else if (spec[i] === "*") out += ".*";
    else out += escapeRegExp(spec[i]);
  }
  return out;
}
