// LSP results as compact text for the model: locations as `path:line:col: <the line>` relative to
// the working directory, hover contents as the server wrote them, symbols as an indented outline
// with their kinds and lines, call hierarchy items with where they are and where the calls are.
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { displayPath } from "../tools/paths.ts";
import { toColumn } from "./positions.ts";
import type { LspCallHierarchyItem, LspDocumentSymbol, LspHover, LspIncomingCall, LspLocation, LspLocationLink, LspMarkedString, LspOutgoingCall, LspRange, LspSymbolInformation } from "./types.ts";

/** The most locations, symbols or calls shown; the rest are counted. */
export const MAX_RESULTS = 200;
const MAX_LINE_CHARS = 200;
/** Files larger than this (generated bundles, logs) are not read to quote a result's line: the
 * place is shown alone, as for a file Read may not open. */
export const MAX_QUOTED_FILE_BYTES = 4 * 1024 * 1024;

const KINDS = ["File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor", "Enum", "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key", "Null", "EnumMember", "Struct", "Event", "Operator", "TypeParameter"];

export function kindName(kind: number): string {
  return KINDS[kind - 1] ?? "Symbol";
}

/** Reads the lines of the files results point into, once each per call; those of a file `closed`
 * says Read may not open, or past MAX_QUOTED_FILE_BYTES, are not read (the place is shown without
 * its line). */
export class LineSource {
  #cwd: string;
  #closed: ((file: string) => boolean) | undefined;
  #files = new Map<string, string[] | undefined>();
  constructor(cwd: string, known?: { uri: string; text: string }, closed?: (file: string) => boolean) {
    this.#cwd = cwd;
    this.#closed = closed;
    if (known) this.#files.set(known.uri, known.text.split("\n"));
  }

  line(uri: string, line: number): string | undefined {
    if (!this.#files.has(uri)) {
      let lines: string[] | undefined;
      try {
        const file = uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
        lines = file !== undefined && !this.#closed?.(file) && statSync(file).size <= MAX_QUOTED_FILE_BYTES ? readFileSync(file, "utf8").split("\n") : undefined;
      } catch {
        lines = undefined;
      }
      this.#files.set(uri, lines);
    }
    return this.#files.get(uri)?.[line]?.replace(/\r$/, "");
  }

  /** `path:line:col` of a position in `uri`. */
  where(uri: string, range: LspRange | undefined): string {
    const shown = this.path(uri);
    if (!range) return shown;
    return `${shown}:${range.start.line + 1}:${toColumn(this.line(uri, range.start.line), range.start.character)}`;
  }

  path(uri: string): string {
    if (!uri.startsWith("file:")) return uri;
    try {
      return displayPath(this.#cwd, fileURLToPath(uri));
    } catch {
      return uri;
    }
  }

  /** `path:line:col: <the line's text>`. */
  located(uri: string, range: LspRange): string {
    const text = this.line(uri, range.start.line)?.trim();
    return text ? `${this.where(uri, range)}: ${cut(text)}` : this.where(uri, range);
  }
}

/** A definition, implementation or references answer: Location, Location[], LocationLink[] or null. */
export function formatLocations(result: unknown, lines: LineSource, noun: string): string {
  const list = (Array.isArray(result) ? result : result ? [result] : []) as (LspLocation | LspLocationLink)[];
  const locations = list.map((item) => ("targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange ?? item.targetRange } : item)).filter((l) => typeof l?.uri === "string" && l.range);
  if (locations.length === 0) return `No results: no ${noun} found.`;
  const files = new Set(locations.map((l) => l.uri)).size;
  const head = `Found ${locations.length} ${noun}${locations.length === 1 ? "" : "s"}${files > 1 ? ` in ${files} files` : ""}:`;
  return [head, ...capped(locations.map((l) => lines.located(l.uri, l.range)))].join("\n");
}

export function formatHover(result: unknown): string {
  const hover = result as LspHover | null;
  if (!hover || hover.contents === undefined || hover.contents === null) return "No results: no hover information here.";
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  const text = parts
    .map((part: LspMarkedString | { kind: string; value: string }) => (typeof part === "string" ? part : "kind" in part ? part.value : `\`\`\`${part.language}\n${part.value}\n\`\`\``))
    .filter((part) => part.trim() !== "")
    .join("\n\n");
  return text.trim() === "" ? "No results: no hover information here." : text;
}

/** DocumentSymbol[] (an outline) or SymbolInformation[] (a flat list). */
export function formatDocumentSymbols(result: unknown, lines: LineSource): string {
  const list = (Array.isArray(result) ? result : []) as (LspDocumentSymbol | LspSymbolInformation)[];
  if (list.length === 0) return "No results: no symbols in this file.";
  if (list.some((s) => "location" in s)) return formatSymbolList(list as LspSymbolInformation[], lines);
  const out: string[] = [];
  const walk = (symbols: LspDocumentSymbol[], depth: number) => {
    for (const symbol of symbols) {
      const { start, end } = symbol.range;
      const span = end.line > start.line ? `lines ${start.line + 1}-${end.line + 1}` : `line ${start.line + 1}`;
      out.push(`${"  ".repeat(depth)}${kindName(symbol.kind)} ${symbol.name}${symbol.detail ? ` — ${cut(symbol.detail.replace(/\s+/g, " "))}` : ""} (${span})`);
      if (symbol.children) walk(symbol.children, depth + 1);
    }
  };
  walk(list as LspDocumentSymbol[], 0);
  return capped(out).join("\n");
}

/** SymbolInformation[] or WorkspaceSymbol[]. */
export function formatSymbolList(result: unknown, lines: LineSource): string {
  const list = (Array.isArray(result) ? result : []) as LspSymbolInformation[];
  if (list.length === 0) return "No results: no symbols found.";
  const rows = list.map((s) => `${kindName(s.kind)} ${s.name}${s.containerName ? ` (in ${s.containerName})` : ""} — ${lines.where(s.location.uri, s.location.range)}`);
  return [`Found ${list.length} symbol${list.length === 1 ? "" : "s"}:`, ...capped(rows)].join("\n");
}

export function formatCallItems(items: unknown, lines: LineSource): string {
  const list = (Array.isArray(items) ? items : []) as LspCallHierarchyItem[];
  if (list.length === 0) return "No results: no function or method here to show calls of.";
  return capped(list.map((item) => itemLine(item, lines))).join("\n");
}

/** Incoming calls (`from`, with the calls' ranges in its file) or outgoing ones (`to`, the ranges
 * in the file of the item asked about). */
export function formatCalls(calls: (LspIncomingCall | LspOutgoingCall)[], item: LspCallHierarchyItem, lines: LineSource, direction: "incoming" | "outgoing"): string {
  if (calls.length === 0) return direction === "incoming" ? `No results: nothing found that calls ${item.name}.` : `No results: ${item.name} calls nothing found.`;
  const rows = calls.map((call) => {
    const other = "from" in call ? call.from : call.to;
    const callsIn = "from" in call ? call.from.uri : item.uri;
    const at = call.fromRanges.map((range) => `${range.start.line + 1}:${toColumn(lines.line(callsIn, range.start.line), range.start.character)}`);
    return `${itemLine(other, lines)}\n  ${"from" in call ? `calls ${item.name} at` : "called at"} ${lines.path(callsIn)}:${at.join(", ")}`;
  });
  const head = direction === "incoming" ? `${calls.length} caller${calls.length === 1 ? "" : "s"} of ${item.name}:` : `${item.name} calls ${calls.length} function${calls.length === 1 ? "" : "s"}:`;
  return [head, ...capped(rows)].join("\n");
}

function itemLine(item: LspCallHierarchyItem, lines: LineSource): string {
  return `${kindName(item.kind)} ${item.name}${item.detail ? ` — ${cut(item.detail.replace(/\s+/g, " "))}` : ""} — ${lines.where(item.uri, item.selectionRange ?? item.range)}`;
}

function capped(rows: string[]): string[] {
  if (rows.length <= MAX_RESULTS) return rows;
  return [...rows.slice(0, MAX_RESULTS), `… and ${rows.length - MAX_RESULTS} more not shown.`];
}

function cut(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS - 1)}…` : text;
}
