import path from "node:path";
import type { Word } from "./shell-types.ts";

/** Variables that change which program runs, what it loads, or how paths resolve. A command
 * prefixed with one of them (`LD_PRELOAD=x npm test`) is only matched as written, never with the
 * prefix stripped, and a bare assignment of one asks. */
const DANGEROUS_VARIABLE =
  /^(?:LD_\w*|DYLD_\w*|PATH|HOME|CDPATH|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|GLOBIGNORE|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|GIT_\w*|PAGER|EDITOR|VISUAL|BROWSER)$/;

/** Options of the wrappers that take their value as the next word. */
const TIMEOUT_VALUES = ["-s", "-k", "--signal", "--kill-after"];
const NICE_VALUES = ["-n", "--adjustment"];
const STDBUF_VALUES = ["-i", "-o", "-e", "--input", "--output", "--error"];

/** The index of the first word after a wrapper's options (from `i`), past an ending `--`. A value
 * attached to its option (`-n5`, `--signal=KILL`) stays in the option's word. */
function skipOptions(words: readonly Word[], i: number, values: readonly string[]): number {
  while (i < words.length && words[i].value.startsWith("-") && words[i].value !== "-") {
    const text = words[i].value;
    i++;
    if (text === "--") break;
    if (values.includes(text)) i++;
  }
  return i;
}

export function isDangerousAssignment(word: Word): boolean {
  const name = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(word.value)?.[1] ?? "";
  return DANGEROUS_VARIABLE.test(name);
}

/** Removes the wrappers that run their arguments as a command, so rules match the command itself:
 * `env [-i] [-u NAME] [NAME=value…]`, `timeout [options] DURATION`, `nice [-n N]`, `nohup`,
 * `time [-p]`, `stdbuf [-i|-o|-e MODE]`, `command [-p]`, `builtin`, `exec [-cl] [-a NAME]`.
 * Options taking a value may have it in the next word (`--kill-after 5`, `--user root`), and a
 * `--` may end them.
 * `env -S`/`-C` and unknown wrapper options are reported instead (the command cannot be known).
 * Also reports a dangerous `env NAME=value`. */
export function stripWrappers(words: readonly Word[]): { argv: Word[]; problem?: string; dangerous: boolean } {
  let i = 0;
  let dangerous = false;
  for (let round = 0; round < 16 && i < words.length; round++) {
    const head = words[i];
    if (head.dynamic) break;
    const name = path.basename(head.value);
    const next = (offset: number) => words[i + offset]?.value;
    if (name === "env") {
      i++;
      while (i < words.length) {
        const text = words[i].value;
        if (["-i", "--ignore-environment", "-0", "--null", "-"].includes(text) || text.startsWith("--unset=")) i++;
        else if (text === "-u") i += 2;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
          dangerous ||= isDangerousAssignment(words[i]);
          i++;
        } else if (text.startsWith("-")) return { argv: words.slice(), problem: `the env option ${text} is not supported`, dangerous };
        else break;
      }
    } else if (name === "timeout") {
      i = skipOptions(words, i + 1, TIMEOUT_VALUES);
      i++;
    } else if (name === "nice") {
      i = skipOptions(words, i + 1, NICE_VALUES);
    } else if (name === "nohup" || name === "builtin") {
      i = skipOptions(words, i + 1, []);
    } else if (name === "time") {
      i += next(1) === "-p" ? 2 : 1;
    } else if (name === "stdbuf") {
      i = skipOptions(words, i + 1, STDBUF_VALUES);
    } else if (name === "command") {
      if (next(1) === "-v" || next(1) === "-V") break;
      i += next(1) === "-p" ? 2 : 1;
    } else if (name === "exec") {
      i++;
      while (next(0)?.startsWith("-")) i += next(0) === "-a" ? 2 : 1;
    } else break;
  }
  const argv = words.slice(i);
  return { argv: argv.length > 0 ? argv : words.slice(), dangerous };
}
