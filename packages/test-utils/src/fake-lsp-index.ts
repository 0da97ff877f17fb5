// The tiny code index of the fake language server: `function name(`, `class Name`, `interface
// Name` declarations (a class's indented `name(…) {` lines are its methods), `name(` calls, and
// `@error` / `@warning` markers that become diagnostics. Positions count UTF-16 code units, as LSP's do.

export type Pos = { line: number; character: number };
export type Range = { start: Pos; end: Pos };
export type Decl = { name: string; kind: number; uri: string; range: Range; selectionRange: Range; text: string; doc?: string; implements?: string; children: Decl[] };

export const KIND = { class: 5, method: 6, interface: 11, function: 12 } as const;
const DECLARATION = /^(\s*)(?:export\s+)?(function|class|interface)\s+([A-Za-z_$][\w$]*)(?:.*?\bimplements\s+([A-Za-z_$][\w$]*))?/;
const METHOD = /^\s+([A-Za-z_$][\w$]*)\s*\(.*\)\s*(?::[^{]*)?\{/;
const KEYWORDS = new Set(["if", "for", "while", "switch", "return", "function", "catch", "constructor"]);

export function declarationsOf(uri: string, text: string): Decl[] {
  const lines = text.split("\n");
  const decls: Decl[] = [];
  lines.forEach((line, i) => {
    const m = DECLARATION.exec(line);
    if (!m || m[1] !== "") return;
    const [, , keyword, name, implemented] = m;
    const at = line.indexOf(name!, line.indexOf(keyword!) + keyword!.length);
    const end = blockEnd(lines, i);
    const previous = lines[i - 1]?.trim();
    const decl: Decl = {
      name: name!,
      kind: KIND[keyword as keyof typeof KIND],
      uri,
      range: { start: { line: i, character: 0 }, end: { line: end, character: lines[end]!.length } },
      selectionRange: { start: { line: i, character: at }, end: { line: i, character: at + name!.length } },
      text: line.replace(/\s*\{\s*$/, "").trim(),
      ...(previous?.startsWith("//") && { doc: previous.replace(/^\/\/\s*/, "") }),
      ...(implemented && { implements: implemented }),
      children: [],
    };
    if (keyword === "class") {
      for (let j = i + 1; j < end; j++) {
        const method = METHOD.exec(lines[j]!);
        if (!method || KEYWORDS.has(method[1]!)) continue;
        const col = lines[j]!.indexOf(method[1]!);
        const last = blockEnd(lines, j);
        decl.children.push({
          name: method[1]!,
          kind: KIND.method,
          uri,
          range: { start: { line: j, character: 0 }, end: { line: last, character: lines[last]!.length } },
          selectionRange: { start: { line: j, character: col }, end: { line: j, character: col + method[1]!.length } },
          text: lines[j]!.replace(/\s*\{\s*$/, "").trim(),
          children: [],
        });
      }
    }
    decls.push(decl);
  });
  return decls;
}

/** The line of the `}` that closes the block opened on line `start` (by indentation). */
function blockEnd(lines: string[], start: number): number {
  if (!lines[start]!.includes("{") || lines[start]!.trimEnd().endsWith("}")) return start;
  const indent = /^\s*/.exec(lines[start]!)![0];
  for (let j = start + 1; j < lines.length; j++) if (lines[j]!.startsWith(`${indent}}`)) return j;
  return lines.length - 1;
}

/** Every whole-word occurrence of `name`, as ranges. */
export function occurrences(text: string, name: string): Range[] {
  const ranges: Range[] = [];
  const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g");
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(word)) ranges.push({ start: { line: i, character: m.index }, end: { line: i, character: m.index + name.length } });
  });
  return ranges;
}

/** The calls `name(` of other names in `text` between two lines (inclusive), declarations excepted. */
export function callsIn(text: string, from: number, to: number): { name: string; range: Range }[] {
  const calls: { name: string; range: Range }[] = [];
  text.split("\n").forEach((line, i) => {
    if (i < from || i > to) return;
    for (const m of line.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(/g)) {
      const before = line.slice(0, m.index);
      if (KEYWORDS.has(m[1]!) || /\bfunction\s+$/.test(before) || (i === from && METHOD.test(line))) continue;
      calls.push({ name: m[1]!, range: { start: { line: i, character: m.index }, end: { line: i, character: m.index + m[1]!.length } } });
    }
  });
  return calls;
}

/** The identifier at `pos`, if any. */
export function wordAt(text: string, pos: Pos): string | undefined {
  const line = text.split("\n")[pos.line];
  if (line === undefined) return undefined;
  for (const m of line.matchAll(/[A-Za-z_$][\w$]*/g)) if (pos.character >= m.index && pos.character <= m.index + m[0].length) return m[0];
  return undefined;
}

/** A diagnostic for each line with `@error` (severity 1) or `@warning` (2). */
export function markerDiagnostics(text: string): { range: Range; severity: number; message: string; source: string }[] {
  const out: { range: Range; severity: number; message: string; source: string }[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [marker, severity] of [["@error", 1], ["@warning", 2]] as const) {
      const at = line.indexOf(marker);
      if (at === -1) continue;
      const said = line.slice(at + marker.length).trim();
      out.push({ range: { start: { line: i, character: at }, end: { line: i, character: at + marker.length } }, severity, message: said || `marked ${marker.slice(1)}`, source: "fake-lsp" });
    }
  });
  return out;
}
