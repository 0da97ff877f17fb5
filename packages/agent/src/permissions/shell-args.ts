import type { Word } from "./shell-types.ts";

/** How a command's options are written: which take a value (`-n 5`, `--lines 5`, `--lines=5`). */
export type OptionSpec = { values?: readonly string[] };

export type ScannedArgs = {
  /** Non-option arguments, in order (everything after `--` included). */
  operands: Word[];
  /** Every option with the value it took, if any. A short option cluster (`-la`) gives one entry
   * per letter. */
  options: { name: string; value?: Word }[];
};

/** Splits `args` (the words after the command name) into options and operands. An option not in
 * `spec.values` is taken to be a flag. `-` alone is an operand (stdin). */
export function scanArgs(args: readonly Word[], spec: OptionSpec): ScannedArgs {
  const takesValue = new Set(spec.values ?? []);
  const operands: Word[] = [];
  const options: { name: string; value?: Word }[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    const text = word.value;
    if (text === "--" && !word.dynamic) {
      for (let j = i + 1; j < args.length; j++) operands.push(args[j]);
      break;
    }
    if (!text.startsWith("-") || text === "-" || word.dynamic) {
      operands.push(word);
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      if (eq !== -1) {
        options.push({ name: text.slice(0, eq), value: { ...word, raw: text.slice(eq + 1), value: text.slice(eq + 1) } });
      } else if (takesValue.has(text) && i + 1 < args.length) {
        options.push({ name: text, value: args[++i] });
      } else options.push({ name: text });
      continue;
    }
    for (let k = 1; k < text.length; k++) {
      const name = `-${text[k]}`;
      if (!takesValue.has(name)) {
        options.push({ name });
        continue;
      }
      const attached = text.slice(k + 1);
      if (attached !== "") options.push({ name, value: { ...word, raw: attached, value: attached } });
      else if (i + 1 < args.length) options.push({ name, value: args[++i] });
      else options.push({ name });
      break;
    }
  }
  return { operands, options };
}

export function hasOption(scanned: ScannedArgs, ...names: string[]): boolean {
  return scanned.options.some((option) => names.includes(option.name));
}

export function optionValues(scanned: ScannedArgs, ...names: string[]): Word[] {
  return scanned.options.flatMap((option) => (names.includes(option.name) && option.value !== undefined ? [option.value] : []));
}

export function literalWord(text: string): Word {
  return { raw: text, value: text, dynamic: false, glob: false };
}
