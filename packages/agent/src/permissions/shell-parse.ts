import { META, ShellSyntaxError, fail } from "./shell-state.ts";
import type { Heredoc, State } from "./shell-state.ts";
import type { Redirect, ShellParse, SimpleCommand } from "./shell-types.ts";
import { readWord } from "./shell-words.ts";

/** Splits a bash command line into the simple commands it would run, including those inside
 * `$(…)`, backticks, `<(…)`, subshells, `{ …; }` groups and if/while/for bodies. Lists (`&&`, `||`,
 * `;`, `&`, newlines) and pipelines become separate commands. Quotes and escapes are honoured, so
 * `echo "a && b"` is one command.
 *
 * Anything it cannot follow with certainty fails with a reason instead of guessing: unbalanced
 * quotes or parentheses, `case` and function definitions, `((…))`, arithmetic or parameter
 * expansions that could evaluate code (`$((x))`, `${!x}`, `${a[…]}`), expansions inside an unquoted
 * here-document. Quoted here-documents (`<<'EOF'`) and plain ones without expansions are read. */
export function parseShell(source: string): ShellParse {
  const state: State = { src: source, pos: 0, commands: [], heredocs: [], depth: 0, parseList };
  try {
    parseList(state, null);
    if (state.heredocs.length > 0) fail(`the here-document ended by "${state.heredocs[0].delimiter}" is not terminated`);
    return { ok: true, commands: state.commands };
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

const MAX_DEPTH = 8;
const STRUCTURAL = new Set(["if", "then", "elif", "else", "fi", "do", "done", "while", "until", "!", "{", "}"]);
const UNSUPPORTED_KEYWORDS = new Set(["case", "esac", "function", "coproc", "select"]);

function parseList(st: State, end: ")" | null): void {
  if (st.depth > MAX_DEPTH) fail("the command nests too deeply");
  for (;;) {
    skipBlanks(st);
    const c = st.src[st.pos];
    const next = st.src[st.pos + 1];
    if (c === undefined) {
      if (end !== null) fail(`a "(" is never closed`);
      return;
    }
    if (c === "#") skipComment(st);
    else if (c === "\n") {
      st.pos++;
      readHeredocBodies(st);
    } else if (c === ")") {
      if (end === null) fail(`unexpected ")"`);
      st.pos++;
      return;
    } else if (c === ";") {
      if (next === ";" || next === "&") fail("case clauses are not supported");
      st.pos++;
    } else if (c === "&" && next !== ">") {
      st.pos += next === "&" ? 2 : 1;
    } else if (c === "|") {
      st.pos += next === "|" || next === "&" ? 2 : 1;
    } else if (c === "(") {
      if (next === "(") fail("arithmetic commands ((…)) are not supported");
      st.pos++;
      st.depth++;
      parseList(st, ")");
      st.depth--;
    } else parseSimpleCommand(st);
  }
}

function parseSimpleCommand(st: State): void {
  const cmd: SimpleCommand = { assignments: [], words: [], redirects: [] };
  let inTest = false;
  for (;;) {
    skipBlanks(st);
    const c = st.src[st.pos];
    const next = st.src[st.pos + 1];
    if (c === undefined || c === "\n") break;
    if (inTest) {
      if (st.src.startsWith("]]", st.pos) && endsToken(st.src[st.pos + 2])) {
        st.pos += 2;
        cmd.words.push({ raw: "]]", value: "]]", dynamic: false, glob: false });
        inTest = false;
      } else cmd.words.push(readWord(st, true));
      continue;
    }
    if (c === "#") {
      skipComment(st);
      break;
    }
    if (c === ";" || c === "|" || c === ")") break;
    if (c === "&" && next !== ">") break;
    if ((c === "<" || c === ">") && next === "(") {
      cmd.words.push(readWord(st, false));
      continue;
    }
    if (startsRedirect(st)) {
      cmd.redirects.push(readRedirect(st));
      continue;
    }
    if (c === "(") {
      fail(cmd.words.length > 0 ? `function definitions are not supported` : `arrays and "(" inside a command are not supported`);
    }
    const word = readWord(st, false);
    if (cmd.words.length === 0) {
      if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.raw)) {
        cmd.assignments.push(word);
        continue;
      }
      const plain = word.raw === word.value && !word.dynamic;
      if (plain && STRUCTURAL.has(word.raw) && cmd.assignments.length === 0 && cmd.redirects.length === 0) continue;
      if (plain && UNSUPPORTED_KEYWORDS.has(word.raw)) fail(`"${word.raw}" is not supported`);
      if (plain && word.raw === "for") {
        readForHeader(st);
        return;
      }
      if (plain && word.raw === "[[") inTest = true;
    }
    cmd.words.push(word);
  }
  if (inTest) fail(`a "[[" is never closed`);
  if (cmd.words.length + cmd.assignments.length + cmd.redirects.length > 0) st.commands.push(cmd);
}

/** `for NAME [in WORDS]`: the words are read (their substitutions count), the loop body follows. */
function readForHeader(st: State): void {
  for (;;) {
    skipBlanks(st);
    const c = st.src[st.pos];
    if (c === undefined || c === "\n" || c === ";" || c === "&" || c === "|" || c === ")") return;
    if (c === "(") fail("arithmetic for loops are not supported");
    readWord(st, false);
  }
}

function endsToken(c: string | undefined): boolean {
  return c === undefined || META.has(c);
}

function startsRedirect(st: State): boolean {
  const rest = st.src.slice(st.pos, st.pos + 12);
  return /^(?:\d*[<>]|&>)/.test(rest);
}

const REDIRECT_OPS = ["&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<>", "<&", ">", "<"];

function readRedirect(st: State): Redirect {
  while (/\d/.test(st.src[st.pos] ?? "")) st.pos++;
  const op = REDIRECT_OPS.find((candidate) => st.src.startsWith(candidate, st.pos)) as string;
  st.pos += op.length;
  skipBlanks(st);
  if (endsToken(st.src[st.pos])) fail(`the redirection "${op}" has no target`);
  const target = readWord(st, false);
  if (op === "<<" || op === "<<-") {
    const quoted = target.raw !== target.value || /['"\\]/.test(target.raw);
    if (target.dynamic && !quoted) fail("here-document delimiters with expansions are not supported");
    st.heredocs.push({ delimiter: target.value, quoted, stripTabs: op === "<<-" });
    return { op };
  }
  if (op === ">&" || op === "<&") {
    if (/^(?:\d+-?|-)$/.test(target.value)) return { op };
    return { op: op === ">&" ? "&>" : "<", target };
  }
  return { op, target };
}

function readHeredocBodies(st: State): void {
  while (st.heredocs.length > 0) {
    const doc = st.heredocs.shift() as Heredoc;
    for (;;) {
      if (st.pos >= st.src.length) fail(`the here-document ended by "${doc.delimiter}" is not terminated`);
      const newline = st.src.indexOf("\n", st.pos);
      const lineEnd = newline === -1 ? st.src.length : newline;
      const line = st.src.slice(st.pos, lineEnd);
      st.pos = newline === -1 ? st.src.length : newline + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) break;
      if (!doc.quoted && /\$\(|`/.test(line)) fail("command substitutions inside an unquoted here-document are not supported");
    }
  }
}

function skipBlanks(st: State): void {
  for (;;) {
    const c = st.src[st.pos];
    if (c === " " || c === "\t") st.pos++;
    else if (c === "\\" && st.src[st.pos + 1] === "\n") st.pos += 2;
    else return;
  }
}

function skipComment(st: State): void {
  const newline = st.src.indexOf("\n", st.pos);
  st.pos = newline === -1 ? st.src.length : newline;
}
