import path from "node:path";
import { commandEffect } from "./shell-commands.ts";
import type { CommandEffect } from "./shell-commands.ts";
import { parseShell } from "./shell-parse.ts";
import type { SimpleCommand, Word } from "./shell-types.ts";
import { isDangerousAssignment, stripWrappers } from "./wrappers.ts";

/** One command of a command line, ready to be checked on its own. */
export type CommandUnit = {
  /** As written (assignments included, redirections left out), for messages. */
  text: string;
  /** Texts allow rules are matched against: as written, and without wrappers and harmless
   * variable assignments. */
  allowForms: string[];
  /** Texts deny and ask rules are matched against: also with quotes removed and with the program's
   * directory dropped (`/bin/rm` → `rm`), so quoting cannot dodge a deny rule. */
  denyForms: string[];
  effect: CommandEffect;
  redirectReads: Word[];
  redirectWrites: Word[];
  /** Why the command cannot be taken as read-only or as a file command, if so. */
  problem?: string;
};

const MAX_SCRIPT_DEPTH = 4;
const DEVICES = /^\/dev\/(?:null|zero|stdin|stdout|stderr|tty|u?random|fd\/\d+)$/;
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/** The units of a whole command line, nested scripts (`bash -c`, `eval`) and commands run by
 * `find -exec` / `xargs` included; or why the line cannot be checked. */
export function commandUnits(command: string, depth = 0): { ok: true; units: CommandUnit[] } | { ok: false; error: string } {
  const parsed = parseShell(command);
  if (!parsed.ok) return parsed;
  const units: CommandUnit[] = [];
  for (const simple of parsed.commands) {
    const result = addUnits(simple, false, depth, units);
    if (result !== undefined) return { ok: false, error: result };
  }
  return { ok: true, units };
}

function addUnits(simple: SimpleCommand, openArgs: boolean, depth: number, units: CommandUnit[]): string | undefined {
  const unit = toUnit(simple, openArgs);
  units.push(unit);
  for (const run of unit.effect.runs) {
    const error = addUnits({ assignments: [], words: run.words, redirects: [] }, run.openArgs, depth, units);
    if (error !== undefined) return error;
  }
  if (unit.effect.script !== undefined) {
    if (depth >= MAX_SCRIPT_DEPTH) return "shells nest too deeply";
    const nested = commandUnits(unit.effect.script, depth + 1);
    if (!nested.ok) return `in ${unit.text}: ${nested.error}`;
    for (const nestedUnit of nested.units) units.push(nestedUnit);
  }
  return undefined;
}

function toUnit(simple: SimpleCommand, openArgs: boolean): CommandUnit {
  const redirectReads: Word[] = [];
  const redirectWrites: Word[] = [];
  for (const redirect of simple.redirects) {
    if (redirect.target === undefined || redirect.op === "<<<" || DEVICES.test(redirect.target.value)) continue;
    if (WRITE_OPS.has(redirect.op)) redirectWrites.push(redirect.target);
    if (redirect.op === "<" || redirect.op === "<>") redirectReads.push(redirect.target);
  }
  const text = join([...simple.assignments, ...simple.words], "raw");
  if (simple.words.length === 0) {
    const dangerous = simple.assignments.find(isDangerousAssignment);
    const effect: CommandEffect = { readOnly: dangerous === undefined, fileOp: false, reads: [], searches: [], writes: [], changesDir: false, runs: [], transparent: false };
    return {
      text,
      allowForms: [text],
      denyForms: [text],
      effect,
      redirectReads,
      redirectWrites,
      ...(dangerous === undefined ? {} : { problem: `it sets ${dangerous.value.split("=")[0]}, which changes how later commands run` }),
    };
  }
  const stripped = stripWrappers(simple.words);
  const dangerous = stripped.dangerous || simple.assignments.some(isDangerousAssignment);
  const argv = stripped.argv;
  const effect = commandEffect(argv);
  if (openArgs) Object.assign(effect, { readOnly: false, fileOp: false });
  const bare = argv.map((word, i) => (i === 0 ? { ...word, value: path.basename(word.value) } : word));
  const allowForms = dangerous ? [text] : unique([text, join(argv, "raw")]);
  const denyForms = unique([text, join(simple.words, "raw"), join(argv, "raw"), join(simple.words, "value"), join(argv, "value"), join(bare, "value")]);
  const problem =
    stripped.problem ??
    effect.unknown ??
    (dangerous ? "it changes a variable that decides which program runs or what it loads" : undefined) ??
    (openArgs ? "it is run with arguments only known at run time" : undefined);
  return { text, allowForms, denyForms, effect, redirectReads, redirectWrites, ...(problem === undefined ? {} : { problem }) };
}

function join(words: readonly Word[], field: "raw" | "value"): string {
  return words.map((word) => word[field]).join(" ");
}

function unique(texts: string[]): string[] {
  return [...new Set(texts)];
}
