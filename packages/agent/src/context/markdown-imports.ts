// `@path` imports in memory files. An import is `@` at the start of a line or after whitespace,
// followed by a path; markdown code (fenced blocks and inline code spans) is never scanned, so
// examples like `npm i @types/node` in backticks stay text.

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const IMPORT = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;
/** Sentence punctuation after a path ("see @README.md.") is not part of it. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;

/** The import paths in `text`, in order of appearance, as written (`~/x`, `/abs`, `./rel`, `rel`),
 * with `\ ` unescaped and any `#fragment` removed. */
export function findImports(text: string): string[] {
  const found: string[] = [];
  for (const prose of proseSegments(text)) {
    for (const match of withoutCodeSpans(prose).matchAll(IMPORT)) {
      const path = cleanPath(match[1] as string);
      if (path !== undefined) found.push(path);
    }
  }
  return found;
}

/** The text outside fenced code blocks, one string per run of non-code lines. */
function proseSegments(text: string): string[] {
  const segments: string[] = [];
  let current: string[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    // A backtick fence's info string cannot itself contain a backtick (CommonMark).
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      segments.push(current.join("\n"));
      current = [];
      continue;
    }
    current.push(line);
  }
  if (!fence) segments.push(current.join("\n"));
  return segments;
}

/** `text` with every inline code span blanked out (same length, so word boundaries survive). A
 * span opens with a run of backticks and closes at the next run of the same length. */
function withoutCodeSpans(text: string): string {
  if (!text.includes("`")) return text;
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "`") {
      out += text[i];
      i++;
      continue;
    }
    let run = 1;
    while (text[i + run] === "`") run++;
    const close = findRun(text, i + run, run);
    if (close === -1) {
      out += text.slice(i, i + run);
      i += run;
      continue;
    }
    out += " ".repeat(close + run - i);
    i = close + run;
  }
  return out;
}

function findRun(text: string, from: number, length: number): number {
  let i = text.indexOf("`", from);
  while (i !== -1) {
    let run = 1;
    while (text[i + run] === "`") run++;
    if (run === length) return i;
    i = text.indexOf("`", i + run);
  }
  return -1;
}

function cleanPath(raw: string): string | undefined {
  let path = raw.replace(/\\ /g, " ");
  const hash = path.indexOf("#");
  if (hash !== -1) path = path.slice(0, hash);
  const trimmed = path.replace(TRAILING_PUNCTUATION, "");
  if (trimmed) path = trimmed;
  if (!path) return undefined;
  if (path.startsWith("./") || path.startsWith("~/") || path.startsWith("../")) return path;
  if (path.startsWith("/")) return path === "/" ? undefined : path;
  // A bare name: a letter, digit or one of ._- first, so "@@", "@#tag" or "@(x)" are not imports.
  return /^[A-Za-z0-9._-]/.test(path) ? path : undefined;
}
