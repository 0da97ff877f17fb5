import path from "node:path";
import { launched } from "./launchers.ts";
import { hasOption, literalWord, optionValues, scanArgs } from "./shell-args.ts";
import type { OptionSpec, ScannedArgs } from "./shell-args.ts";
import type { Word } from "./shell-types.ts";

/** What one command (its name and arguments, wrappers already removed) does, as far as permissions
 * care. */
export type CommandEffect = {
  /** In the read-only set with arguments that keep it read-only: may run without approval, once its
   * `reads` are inside the working directories. */
  readOnly: boolean;
  /** mkdir, touch, mv, cp or tee: acceptEdits mode lets it run when its `writes` are inside the
   * working directories. */
  fileOp: boolean;
  reads: Word[];
  /** Directories read with everything below them (`grep -r`, `rg`, `diff -r`, `cp -r`); a file
   * named here is read as any other. */
  searches: Word[];
  writes: Word[];
  /** cd, pushd, popd: relative paths in the rest of the command line are no longer certain. */
  changesDir: boolean;
  /** git: the repository it uses, and so the configuration that can name programs for it to run
   * (core.fsmonitor, diff.external), is found from the directory it runs in. */
  repository?: boolean;
  /** Commands this one runs with their own words (`find -exec`, `xargs`). `openArgs`: more
   * arguments are appended at run time, so the inner command is never taken as read-only. */
  runs: { words: Word[]; openArgs: boolean }[];
  /** A shell script this one runs (`bash -c`, `sh -c`, `eval`), to be checked command by command. */
  script?: string;
  /** Runs nothing of its own beyond `runs`/`script` (xargs, bash -c, eval): it needs no allow
   * rule itself, though deny and ask rules still apply to it. */
  transparent: boolean;
  /** Why the effect cannot be known before running, if so. */
  unknown?: string;
};

/** The commands allowed without approval in default, acceptEdits and plan mode: they only read.
 * Each entry lists its value-taking options; operands are files it reads unless noted. */
const READ_ONLY: Record<string, OptionSpec & { operands: "read" | "none" }> = {
  ls: { operands: "read", values: ["-I", "-w", "-T", "--ignore", "--hide", "--width", "--tabsize", "--format", "--sort", "--time", "--time-style", "--block-size", "--quoting-style", "--indicator-style"] },
  cat: { operands: "read" },
  head: { operands: "read", values: ["-n", "-c", "--lines", "--bytes"] },
  tail: { operands: "read", values: ["-n", "-c", "-s", "--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"] },
  wc: { operands: "read" },
  stat: { operands: "read", values: ["-c", "--format", "--printf"] },
  du: { operands: "read", values: ["-d", "-B", "-t", "-X", "--max-depth", "--block-size", "--threshold", "--exclude", "--exclude-from", "--time-style"] },
  diff: { operands: "read", values: ["-C", "-U", "-I", "-x", "-X", "-S", "-F", "-D", "-L", "-W", "--label", "--ignore-matching-lines", "--exclude", "--exclude-from", "--starting-file", "--show-function-line", "--ifdef", "--horizon-lines", "--tabsize", "--width", "--line-format", "--from-file", "--to-file"] },
  cmp: { operands: "read", values: ["-i", "-n", "--ignore-initial", "--bytes"] },
  cut: { operands: "read", values: ["-b", "-c", "-f", "-d", "--bytes", "--characters", "--fields", "--delimiter", "--output-delimiter"] },
  cd: { operands: "read", values: [] },
  pushd: { operands: "read", values: [] },
  popd: { operands: "none" },
  echo: { operands: "none" },
  printf: { operands: "none" },
  pwd: { operands: "none" },
  true: { operands: "none" },
  false: { operands: "none" },
  whoami: { operands: "none" },
  which: { operands: "none" },
  basename: { operands: "none" },
  dirname: { operands: "none" },
  realpath: { operands: "none" },
  tr: { operands: "none" },
  test: { operands: "none" },
  "[": { operands: "none" },
  "[[": { operands: "none" },
};

const GREP_VALUES = ["-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--include", "--exclude", "--exclude-dir", "--exclude-from", "--label", "--binary-files", "--devices", "--directories", "--color", "--colour", "--group-separator"];
const RG_VALUES = ["-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j", "-d", "-M", "-r", "-E", "--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--after-context", "--before-context", "--context", "--threads", "--max-depth", "--max-columns", "--replace", "--encoding", "--engine", "--max-filesize", "--ignore-file", "--sort", "--sortr", "--type-add", "--type-clear", "--color", "--colors", "--path-separator", "--context-separator", "--field-match-separator", "--field-context-separator", "--dfa-size-limit", "--regex-size-limit"];
/** rg options that run another program. */
const RG_RUNS = ["--pre", "--pre-glob", "--hostname-bin"];

const GIT_READ_ONLY = new Set(["status", "diff", "log", "show"]);
/** git options that write a file, run a configured program, or read outside the repository. */
const GIT_UNSAFE = /^--(?:output|ext-diff|no-index)(?:=|$)/;

const FIND_RUNS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_WRITES = new Set(["-fprint", "-fprint0", "-fls", "-fprintf"]);

const FILE_OPS: Record<string, OptionSpec> = {
  mkdir: { values: ["-m", "--mode"] },
  touch: { values: ["-d", "-r", "-t", "--date", "--reference"] },
  mv: { values: ["-t", "-S", "--target-directory", "--suffix"] },
  cp: { values: ["-t", "-S", "--target-directory", "--suffix"] },
  tee: {},
};
const REMOVERS = new Set(["rm", "rmdir"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);
const XARGS_VALUES = ["-n", "-L", "-P", "-s", "-d", "-E", "-I", "-a", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--delimiter", "--eof", "--replace", "--arg-file"];

function effect(partial: Partial<CommandEffect>): CommandEffect {
  return { readOnly: false, fileOp: false, reads: [], searches: [], writes: [], changesDir: false, runs: [], transparent: false, ...partial };
}

export function commandEffect(argv: readonly Word[]): CommandEffect {
  const head = argv[0];
  if (head.dynamic) return effect({ unknown: `the command name ${head.raw} is only known at run time` });
  // `{rm,-rf,x}` and `/bin/r?` become other commands once the shell expands them (`[` and `[[`
  // are the test commands themselves).
  if (head.glob && head.value !== "[" && head.value !== "[[") return effect({ unknown: `the command name ${head.raw} expands to other words at run time` });
  const name = head.value;
  const args = argv.slice(1);
  const readOnly = READ_ONLY[name];
  if (readOnly !== undefined) return readOnlyEffect(name, args, readOnly);
  if (name === "grep" || name === "egrep" || name === "fgrep") return searchEffect(args, GREP_VALUES, [], grepRecurses);
  if (name === "rg") return searchEffect(args, RG_VALUES, RG_RUNS, () => true);
  if (name === "find") return findEffect(args);
  if (name === "git") return gitEffect(args);
  const fileOp = FILE_OPS[name];
  if (fileOp !== undefined) return fileOpEffect(name, args, fileOp);
  if (REMOVERS.has(name)) return effect({ writes: scanArgs(args, {}).operands });
  if (SHELLS.has(path.basename(name))) return shellEffect(args);
  if (name === "eval") {
    if (args.some((word) => word.dynamic)) return effect({ unknown: "eval runs text that is only known at run time" });
    return effect({ script: args.map((word) => word.value).join(" "), transparent: true });
  }
  if (name === "trap") return trapEffect(args);
  if (name === "alias") return aliasEffect(args);
  if (name === "sudo" || name === "doas") {
    const words = elevatedCommand(args);
    return effect({ runs: words.length > 0 ? [{ words, openArgs: false }] : [] });
  }
  if (name === "xargs") {
    const words = xargsCommand(args);
    return effect({ runs: [{ words: words.length > 0 ? words : [literalWord("echo")], openArgs: true }], transparent: true });
  }
  const started = launched(path.basename(name), args);
  if (started?.unknown !== undefined) return effect({ unknown: started.unknown });
  if (started?.script !== undefined) return effect({ script: started.script });
  if (started?.words) return effect({ runs: [{ words: started.words, openArgs: false }] });
  return effect({});
}

function readOnlyEffect(name: string, args: Word[], spec: OptionSpec & { operands: "read" | "none" }): CommandEffect {
  const scanned = scanArgs(args, spec);
  const changesDir = name === "cd" || name === "pushd" || name === "popd";
  if (name === "printf" && hasOption(scanned, "-v")) return effect({});
  // `-v name[$(cmd)]` and arithmetic comparisons evaluate array subscripts, which can run code.
  if ((name === "test" || name === "[" || name === "[[") && args.some((word) => word.value === "-v")) return effect({});
  if (name === "[[" && args.some((word) => /^-(?:eq|ne|lt|le|gt|ge)$/.test(word.value))) return effect({});
  if (spec.operands === "none") return effect({ readOnly: true, changesDir });
  const operands = scanned.operands.filter((word) => word.value !== "-" && !(changesDir && /^[+-]\d*$/.test(word.value)));
  const reads = [...operands, ...optionValues(scanned, "--files0-from", "-X", "--exclude-from", "--from-file", "--to-file")];
  if (operands.length === 0 && (name === "ls" || name === "du")) reads.push(literalWord("."));
  if (name === "diff" && hasOption(scanned, "-r", "--recursive")) return effect({ readOnly: true, searches: reads });
  return effect({ readOnly: true, reads, changesDir });
}

function searchEffect(args: Word[], values: string[], runsOptions: string[], recurses: (scanned: ScannedArgs) => boolean): CommandEffect {
  const scanned = scanArgs(args, { values });
  if (hasOption(scanned, ...runsOptions)) return effect({});
  const explicitPattern = hasOption(scanned, "-e", "-f", "--regexp", "--file");
  const files = explicitPattern ? scanned.operands : scanned.operands.slice(1);
  const searched = files.filter((word) => word.value !== "-");
  if (files.length === 0) searched.push(literalWord("."));
  const patternFiles = optionValues(scanned, "-f", "--file", "--exclude-from", "--ignore-file");
  if (recurses(scanned)) return effect({ readOnly: true, reads: patternFiles, searches: searched });
  return effect({ readOnly: true, reads: [...searched, ...patternFiles] });
}

function grepRecurses(scanned: ScannedArgs): boolean {
  return hasOption(scanned, "-r", "-R", "--recursive", "--dereference-recursive") ||
    optionValues(scanned, "-d", "--directories").some((value) => value.value === "recurse");
}

function findEffect(args: Word[]): CommandEffect {
  let i = 0;
  while (i < args.length && /^-(?:[HLP]|D|O\d*)$/.test(args[i].value)) i += args[i].value === "-D" ? 2 : 1;
  const starts: Word[] = [];
  while (i < args.length && !/^[-(!)]/.test(args[i].value)) starts.push(args[i++]);
  const reads = starts.length > 0 ? starts : [literalWord(".")];
  const runs: CommandEffect["runs"] = [];
  const writes: Word[] = [];
  let readOnly = true;
  for (; i < args.length; i++) {
    const primary = args[i].value;
    if (FIND_RUNS.has(primary)) {
      const end = args.findIndex((word, k) => k > i && (word.value === ";" || word.value === "+"));
      const stop = end === -1 ? args.length : end;
      runs.push({ words: args.slice(i + 1, stop), openArgs: true });
      readOnly = false;
      i = stop;
    } else if (primary === "-delete") {
      writes.push(...reads);
      readOnly = false;
    } else if (FIND_WRITES.has(primary)) {
      if (args[i + 1] !== undefined) writes.push(args[i + 1]);
      readOnly = false;
      i += primary === "-fprintf" ? 2 : 1;
    }
  }
  return effect({ readOnly, reads, writes, runs: runs.filter((run) => run.words.length > 0) });
}

function gitEffect(args: Word[]): CommandEffect {
  let i = 0;
  while (args[i]?.value === "--no-pager" || args[i]?.value === "-P") i++;
  const sub = args[i];
  if (sub === undefined || sub.dynamic || !GIT_READ_ONLY.has(sub.value)) return effect({});
  const rest = args.slice(i + 1);
  if (rest.some((word) => word.dynamic || GIT_UNSAFE.test(word.value))) return effect({});
  // Operands may be paths (`git diff .env`, `git show HEAD:.env`): they count as reads, so Read
  // rules apply and paths outside the working directories ask. Revisions resolve to harmless paths.
  const reads = rest
    .filter((word) => !word.value.startsWith("-"))
    .map((word) => {
      const blobPath = /^(?:[^:]*):(.+)$/s.exec(word.value)?.[1];
      return blobPath === undefined ? word : { ...word, raw: blobPath, value: blobPath };
    });
  return effect({ readOnly: true, reads, repository: true });
}

function fileOpEffect(name: string, args: Word[], spec: OptionSpec): CommandEffect {
  const scanned = scanArgs(args, spec);
  const operands = scanned.operands.filter((word) => word.value !== "-");
  const target = optionValues(scanned, "-t", "--target-directory");
  if (name === "cp") {
    const sources = target.length > 0 ? operands : operands.slice(0, -1);
    const writes = target.length > 0 ? target : operands.slice(-1);
    const recursive = hasOption(scanned, "-r", "-R", "-a", "--recursive", "--archive");
    return effect({ fileOp: true, ...(recursive ? { searches: sources } : { reads: sources }), writes });
  }
  const reads = name === "touch" ? optionValues(scanned, "-r", "--reference") : [];
  return effect({ fileOp: true, reads, writes: [...operands, ...target] });
}

/** `bash -c 'script' [name [args…]]`; other invocations run a script file or stdin. */
function shellEffect(args: Word[]): CommandEffect {
  let commandMode = false;
  for (let i = 0; i < args.length; i++) {
    const text = args[i].value;
    if (text === "-o" || text === "+o" || text === "--rcfile" || text === "--init-file") {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(text)) {
      if (text.startsWith("-") && text.includes("c")) commandMode = true;
      continue;
    }
    if (text.startsWith("--")) continue;
    if (!commandMode) return effect({});
    if (args[i].dynamic) return effect({ unknown: "the script given to the shell is only known at run time" });
    return effect({ script: text, transparent: true });
  }
  return effect({});
}

/** `trap ACTION SIGNAL…`: the action is a script the shell runs later. */
function trapEffect(args: Word[]): CommandEffect {
  const action = args[0];
  if (action === undefined || action.value.startsWith("-") || action.value === "") return effect({});
  if (action.dynamic) return effect({ unknown: "the trap's action is only known at run time" });
  return effect({ script: action.value });
}

/** `alias NAME=VALUE…`: with expand_aliases on, each value runs wherever its name is used later. */
function aliasEffect(args: Word[]): CommandEffect {
  const values = args.filter((word) => word.value.includes("="));
  if (values.some((word) => word.dynamic)) return effect({ unknown: "the alias is only known at run time" });
  const script = values.map((word) => word.value.slice(word.value.indexOf("=") + 1)).join("\n");
  return script.trim() === "" ? effect({}) : effect({ script });
}

function xargsCommand(args: Word[]): Word[] {
  for (let i = 0; i < args.length; i++) {
    const text = args[i].value;
    if (!text.startsWith("-")) return args.slice(i);
    if (text === "--") return args.slice(i + 1);
    if (XARGS_VALUES.includes(text)) i++;
  }
  return [];
}

/** The command after `sudo [options]`: rules see it as if it ran on its own (sudo itself still
 * needs an allow rule). */
function elevatedCommand(args: Word[]): Word[] {
  for (let i = 0; i < args.length; i++) {
    const text = args[i].value;
    if (text === "--") return args.slice(i + 1);
    if (!text.startsWith("-")) return args.slice(i);
    if (text.startsWith("--")) {
      if (!text.includes("=") && SUDO_LONG_VALUES.has(text)) i++;
      continue;
    }
    // A cluster such as -iu takes the next word as the value of its last letter; in -uroot the
    // value is attached.
    const valueAt = [...text.slice(1)].findIndex((letter) => SUDO_SHORT_VALUES.includes(letter));
    if (valueAt !== -1 && valueAt === text.length - 2) i++;
  }
  return [];
}

/** sudo's and doas's options that take a value. */
const SUDO_SHORT_VALUES = "ugpCDhrtTUR";
const SUDO_LONG_VALUES = new Set(["--user", "--group", "--prompt", "--close-from", "--chdir", "--host", "--role", "--type", "--command-timeout", "--other-user", "--chroot"]);
