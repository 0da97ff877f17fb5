// Argument placeholders in skill and command bodies, as Claude Code substitutes them:
//   $ARGUMENTS       the whole argument string, as typed
//   $ARGUMENTS[N]    the Nth argument, counting from 0
//   $N               the same as $ARGUMENTS[N] ($0 is the first argument)
//   $name            the argument at the position of `name` in the frontmatter's `arguments`
// Arguments are split like a shell would (quotes group words); a missing one becomes "".
// When the body has no placeholder at all, the arguments are appended as "ARGUMENTS: …".

import { holdArgument } from "../commands/shell-syntax.ts";

/** Shell-like split: whitespace separates, '…' and "…" group, backslash escapes. `$VAR` stays
 * literal (nothing is expanded). Unbalanced quotes fall back to a plain whitespace split. */
export function parseArguments(args: string): string[] {
  const out: string[] = [];
  let current = "";
  let started = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < args.length; i++) {
    const char = args[i] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else current += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && (args[i + 1] === '"' || args[i + 1] === "\\")) current += args[++i];
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "\\" && i + 1 < args.length) {
      current += args[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) out.push(current);
      current = "";
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (quote) return args.split(/\s+/).filter(Boolean);
  if (started) out.push(current);
  return out;
}

export type SubstituteOptions = {
  /** Frontmatter `arguments`: names for the positional arguments. */
  names?: readonly string[];
  /** Append "\n\nARGUMENTS: <args>" when the body has no placeholder (default true). */
  appendIfNoPlaceholder?: boolean;
  /** The body has `!` commands: every argument put in is held (holdArgument) until they are found,
   * and the text must go through releaseArguments before anyone reads it. */
  hold?: boolean;
  /** What `${NAME}` in the body stands for (CLAUDE_SESSION_ID…), put in with the arguments. */
  values?: Readonly<Record<string, string>>;
};

/** `body` with its placeholders replaced in one pass over the body alone: what an argument (or a
 * value) puts in is never read for placeholders again, so it arrives as typed. */
export function substituteArguments(body: string, given: string, options: SubstituteOptions = {}): string {
  const args = options.hold ? holdArgument(given) : given;
  const parsed = parseArguments(given).map((arg) => (options.hold ? holdArgument(arg) : arg));
  const at = (index: number) => parsed[index] ?? "";
  // Longest names first, so `$old-name` is not taken for `$old` followed by "-name".
  const names = (options.names ?? []).flatMap((name, index) => (/^[A-Za-z_][\w-]*$/.test(name) && name !== "ARGUMENTS" ? [{ name, index }] : []));
  names.sort((a, b) => b.name.length - a.name.length);
  const values = Object.keys(options.values ?? {}).filter((name) => /^\w+$/.test(name));
  // One group per form; a form with nothing to match is one that never does.
  const forms = [
    names.length > 0 ? `\\$(${names.map(({ name }) => name.replace(/-/g, "\\-")).join("|")})(?![\\w[])` : "(?!)()",
    "\\$ARGUMENTS\\[(\\d+)\\]",
    "\\$(\\d+)(?!\\w)",
    "\\$ARGUMENTS(?![\\w[])",
    values.length > 0 ? `\\$\\{(${values.join("|")})\\}` : "(?!)()",
  ];
  let placeholders = 0;
  const result = body.replace(new RegExp(forms.join("|"), "g"), (match: string, name?: string, element?: string, position?: string, value?: string) => {
    if (value !== undefined) return options.values?.[value] ?? match;
    placeholders++;
    if (name !== undefined) return at(names.find((entry) => entry.name === name)?.index ?? -1);
    if (element !== undefined) return at(Number(element));
    if (position !== undefined) return at(Number(position));
    return args;
  });
  if (placeholders === 0 && (options.appendIfNoPlaceholder ?? true) && args.trim()) return `${result.trimEnd()}\n\nARGUMENTS: ${args}`;
  return result;
}

/** The frontmatter `arguments` field: a YAML list or a space-separated string of names. */
export function argumentNamesField(value: unknown): string[] | undefined {
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.filter(Boolean);
  return undefined;
}
