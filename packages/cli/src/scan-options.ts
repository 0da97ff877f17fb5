// Scanning a command line's options against a table of them: pure, argv in, options and
// positionals (or a one-line usage error) out. Shared by every `harness` command's parser.
import { looksLikeRule } from "./tool-rules.ts";

/** `repeat`: the option may be given more than once; its values are kept in order. `many`: the
 * arguments after its value are more values, as Claude Code's variadic options take them, up to
 * the next option or one with a space in it (a prompt); `empty`: "" is a value; `missing`: what is
 * said when the value is left out (default: "<flag> needs a value"). `optional`: the value may be
 * left out, as in claude's `--debug [filter]` and `--resume [id]`; it is then `true`. It is given
 * as --flag=VALUE, or as the next argument when that is no option and not `--` (and, for a
 * function, when it accepts it: `--debug "fix the bug"` leaves the prompt alone); `missing` is
 * then what `--flag=` with nothing after it is told. */
export type OptionSpec = { [flag: string]: OptionEntry };
type OptionEntry = { key: string; value: boolean; repeat?: boolean; many?: boolean; empty?: boolean; missing?: string; optional?: true | ((next: string) => boolean) };

export type Scanned = { ok: true; options: Record<string, string | true | string[]>; positionals: string[] } | { ok: false; message: string };

export type ScanOptions = {
  /** What follows an unknown option's message (default: how a prompt that starts with "-" is given). */
  unknownHint?: (flag: string, arg: string, positionals: readonly string[]) => string;
  /** A repeatable option followed by what looks like another rule is refused (default true), as
   * Claude Code's variadic --allowedTools would take it and this parser would not. */
  rulesAsOneArgument?: boolean;
};

/** `harness run "- fix the typo"`: a prompt, not an option, but only `--` can say so. */
function promptHint(command: string, flag: string, arg: string): string {
  return /\s/.test(arg) && flag === arg ? `; a prompt that starts with "-" goes after --: harness ${command} -- "${arg}"` : "";
}

/** Whether `arg` is an option rather than a value or the prompt ("-" alone is standard input). */
function isOption(arg: string): boolean {
  return arg.length >= 2 && arg.startsWith("-");
}

/** Whether `option`, given without "=", takes the argument after it, `next`, for its value: one it
 * needs always does (scan says when that is another option); an optional one as its spec says. */
export function takesNext(option: OptionEntry | undefined, next: string | undefined): boolean {
  if (!option?.value || next === undefined) return false;
  if (!option.optional) return true;
  return !isOption(next) && (option.optional === true || option.optional(next));
}

/** Options anywhere before `--` (values as the spec says); everything else is positional. */
export function scan(args: readonly string[], spec: OptionSpec, command: string, how: ScanOptions = {}): Scanned {
  const options: Record<string, string | true | string[]> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!isOption(arg)) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const option = spec[flag];
    if (!option) {
      const hint = how.unknownHint ? how.unknownHint(flag, arg, positionals) : promptHint(command, flag, arg);
      return { ok: false, message: `unknown option "${flag}" for "harness ${command}"${hint}` };
    }
    if (!option.value) {
      if (eq !== -1) return { ok: false, message: `${flag} takes no value` };
      options[option.key] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (option.optional && !takesNext(option, args[i + 1])) {
      options[option.key] = true;
      continue;
    } else if (i + 1 < args.length && args[i + 1] !== "--") {
      // `--model --max-turns 3`: the value was forgotten, the next option is not it.
      if (spec[args[i + 1].split("=")[0]]) return { ok: false, message: option.missing ?? `${flag} needs a value, not the option ${args[i + 1]}` };
      value = args[++i];
    }
    if (value === undefined || (value.trim() === "" && !option.empty)) return { ok: false, message: option.missing ?? `${flag} needs a value` };
    const earlier = options[option.key];
    options[option.key] = option.repeat ? [...(Array.isArray(earlier) ? earlier : []), value] : value;
    // A JSON value may hold spaces; a prompt seldom starts with "{".
    while (option.many && eq === -1 && i + 1 < args.length && !args[i + 1].startsWith("-") && (!/\s/.test(args[i + 1]) || args[i + 1].trimStart().startsWith("{"))) {
      (options[option.key] as string[]).push(args[++i]);
    }
    // Claude Code's --allowedTools Read Edit takes several arguments; here the second would become
    // the start of the prompt, silently.
    const next = args[i + 1];
    if (how.rulesAsOneArgument !== false && option.repeat && eq === -1 && next !== undefined && !next.startsWith("-") && looksLikeRule(next)) {
      return { ok: false, message: `${flag} takes its rules as one argument, separated by commas: ${flag} "${value},${next}"` };
    }
  }
  return { ok: true, options, positionals };
}
