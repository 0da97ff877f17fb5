import { META, fail } from "./shell-state.ts";
import type { State } from "./shell-state.ts";
import type { Word } from "./shell-types.ts";

/** Reads one word. In a `[[ … ]]` test (`operatorsAreText`), operators are ordinary characters. */
export function readWord(st: State, operatorsAreText: boolean): Word {
  const start = st.pos;
  let value = "";
  let dynamic = false;
  let glob = false;
  for (;;) {
    const c = st.src[st.pos];
    if (c === undefined) break;
    if (c === " " || c === "\t" || c === "\n") break;
    if (!operatorsAreText && META.has(c)) {
      if ((c === "<" || c === ">") && st.src[st.pos + 1] === "(" && st.pos === start) {
        st.pos += 2;
        nested(st);
        value += st.src.slice(start, st.pos);
        dynamic = true;
        continue;
      }
      break;
    }
    if (c === "\\") {
      const escaped = st.src[st.pos + 1];
      if (escaped === "\n") st.pos += 2;
      else if (escaped === undefined) {
        value += "\\";
        st.pos++;
      } else {
        value += escaped;
        st.pos += 2;
      }
    } else if (c === "'") {
      const close = st.src.indexOf("'", st.pos + 1);
      if (close === -1) fail("a single quote is never closed");
      value += st.src.slice(st.pos + 1, close);
      st.pos = close + 1;
    } else if (c === '"') {
      const part = readDoubleQuoted(st);
      value += part.value;
      dynamic ||= part.dynamic;
    } else if (c === "$" || c === "`") {
      const part = readExpansion(st, c);
      value += part.value;
      dynamic ||= part.dynamic;
    } else {
      if (c === "*" || c === "?" || c === "[") glob = true;
      if (c === "{" && isBraceExpansion(st.src, st.pos)) glob = true;
      if (c === "~" && st.pos === start && !endsTildePrefix(st.src[st.pos + 1])) dynamic = true;
      value += c;
      st.pos++;
    }
  }
  if (st.pos === start) fail(`unexpected "${st.src[st.pos]}"`);
  return { raw: st.src.slice(start, st.pos).replace(/\\\n/g, ""), value, dynamic, glob };
}

function endsTildePrefix(c: string | undefined): boolean {
  return c === undefined || c === "/" || META.has(c);
}

function isBraceExpansion(src: string, open: number): boolean {
  const close = src.indexOf("}", open + 1);
  if (close === -1) return false;
  const inner = src.slice(open + 1, close);
  return !/\s/.test(inner) && (inner.includes(",") || inner.includes(".."));
}

function readDoubleQuoted(st: State): { value: string; dynamic: boolean } {
  st.pos++;
  let value = "";
  let dynamic = false;
  for (;;) {
    const c = st.src[st.pos];
    if (c === undefined) fail("a double quote is never closed");
    if (c === '"') {
      st.pos++;
      return { value, dynamic };
    }
    if (c === "\\") {
      const escaped = st.src[st.pos + 1];
      if (escaped === "\n") st.pos += 2;
      else if (escaped === "$" || escaped === "`" || escaped === '"' || escaped === "\\") {
        value += escaped;
        st.pos += 2;
      } else {
        value += "\\";
        st.pos++;
      }
    } else if (c === "$" || c === "`") {
      const part = readExpansion(st, c);
      value += part.value;
      dynamic ||= part.dynamic;
    } else {
      value += c;
      st.pos++;
    }
  }
}

/** At a `$` or a backtick, outside or inside double quotes alike: the expansion's text, and whether
 * its value is only known when the command runs. */
function readExpansion(st: State, c: "$" | "`"): { value: string; dynamic: boolean } {
  return c === "$" ? readDollar(st) : { value: readBackticks(st), dynamic: true };
}

/** At a `$`: an expansion, an ANSI-C or locale string, or a literal dollar sign. */
function readDollar(st: State): { value: string; dynamic: boolean } {
  const start = st.pos;
  const next = st.src[st.pos + 1];
  if (next === "(" && st.src[st.pos + 2] === "(") {
    readArithmetic(st);
    return { value: st.src.slice(start, st.pos), dynamic: true };
  }
  if (next === "(") {
    st.pos += 2;
    nested(st);
    return { value: st.src.slice(start, st.pos), dynamic: true };
  }
  if (next === "{") {
    readParameterExpansion(st);
    return { value: st.src.slice(start, st.pos), dynamic: true };
  }
  if (next === "'") {
    st.pos++;
    return { value: readAnsiC(st), dynamic: false };
  }
  if (next === '"') {
    st.pos++;
    return readDoubleQuoted(st);
  }
  if (next !== undefined && /[A-Za-z_]/.test(next)) {
    st.pos++;
    while (/[A-Za-z0-9_]/.test(st.src[st.pos] ?? "")) st.pos++;
    return { value: st.src.slice(start, st.pos), dynamic: true };
  }
  if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
    st.pos += 2;
    return { value: st.src.slice(start, st.pos), dynamic: true };
  }
  st.pos++;
  return { value: "$", dynamic: false };
}

/** `$((…))` with numbers and operators only: evaluating a variable there can run code hidden in its
 * value (`a[$(cmd)]`), so names are refused. */
function readArithmetic(st: State): void {
  let depth = 0;
  let i = st.pos + 1;
  for (; i < st.src.length; i++) {
    const c = st.src[i];
    if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) break;
    }
  }
  if (i >= st.src.length) fail("a $(( is never closed");
  const inner = st.src.slice(st.pos + 3, i - 1);
  if (st.src[i - 1] !== ")" || !/^[\d\s+\-*/%()<>=!&|^~?:,]*$/.test(inner)) {
    fail("arithmetic expansions other than plain numbers are not supported");
  }
  st.pos = i + 1;
}

/** `${…}`: plain forms only. Indirection, array subscripts and substring offsets are evaluated
 * arithmetically by bash and can run code hidden in a variable, so they are refused. */
function readParameterExpansion(st: State): void {
  let depth = 0;
  let i = st.pos + 1;
  for (; i < st.src.length; i++) {
    const c = st.src[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) break;
    }
  }
  if (i >= st.src.length) fail("a ${ is never closed");
  const inner = st.src.slice(st.pos + 2, i);
  const match = /^#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(.*)$/s.exec(inner);
  const rest = match?.[2] ?? "";
  const safe =
    match !== null &&
    !/\$\(|`|\[/.test(inner) &&
    (rest === "" || /^(?::?[-=+?]|##?|%%?|\/\/?|\^\^?|,,?)/.test(rest) || /^:[\d\s:+-]*$/.test(rest));
  if (!safe) fail(`the expansion "\${${inner}}" is not supported`);
  st.pos = i + 1;
}

function readAnsiC(st: State): string {
  st.pos++;
  let value = "";
  for (;;) {
    const c = st.src[st.pos];
    if (c === undefined) fail("a $' string is never closed");
    if (c === "'") {
      st.pos++;
      return value;
    }
    if (c !== "\\") {
      value += c;
      st.pos++;
      continue;
    }
    const rest = st.src.slice(st.pos + 1, st.pos + 12);
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(rest) ?? /^u([0-9a-fA-F]{1,4})/.exec(rest) ?? /^U([0-9a-fA-F]{1,8})/.exec(rest);
    const octal = /^([0-7]{1,3})/.exec(rest);
    if (hex) {
      value += String.fromCodePoint(Number.parseInt(hex[1], 16));
      st.pos += 1 + hex[0].length;
    } else if (octal) {
      value += String.fromCharCode(Number.parseInt(octal[1], 8));
      st.pos += 1 + octal[0].length;
    } else {
      const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v" };
      const ch = rest[0] ?? "";
      value += simple[ch] ?? ch;
      st.pos += 2;
    }
  }
}

/** Backticks: the text up to the closing backtick, with `\``, `\\` and `\$` unescaped, is parsed as
 * a command of its own. */
function readBackticks(st: State): string {
  const start = st.pos;
  let inner = "";
  let i = st.pos + 1;
  for (;;) {
    const c = st.src[i];
    if (c === undefined) fail("a backtick is never closed");
    if (c === "`") break;
    if (c === "\\" && (st.src[i + 1] === "`" || st.src[i + 1] === "\\" || st.src[i + 1] === "$")) {
      inner += st.src[i + 1];
      i += 2;
    } else {
      inner += c;
      i++;
    }
  }
  st.pos = i + 1;
  const sub: State = { ...st, src: inner, pos: 0, heredocs: [], depth: st.depth + 1 };
  st.parseList(sub, null);
  if (sub.heredocs.length > 0) fail("here-documents inside backticks are not supported");
  return st.src.slice(start, st.pos);
}

function nested(st: State): void {
  st.depth++;
  st.parseList(st, ")");
  st.depth--;
}
