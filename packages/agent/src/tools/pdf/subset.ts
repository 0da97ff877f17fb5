// Read's `pages` of a PDF as a new file: the chosen pages and the objects they reach (resources,
// fonts, images, content streams, annotations), renumbered from 1, objects of compressed object
// streams written out plainly, and a fresh cross-reference table. Stream data is copied as the file
// has it, never decoded. The work is linear in the objects reached: each is loaded, judged and
// written once.
//
// Whatever leads to a page left out is dropped, so that the other pages' objects stay behind: a
// reference to such a page, an explicit destination on it ([page /Fit …]), a dictionary on it (an
// annotation or article bead whose /P it is), a link or action whose destination is dropped, and a
// form field whose widgets all are. Pages lose /Parent (they get the new tree) and /B (beads of
// article threads). The catalog keeps only what displays the pages: its form (/AcroForm, whose
// fields on other pages drop out as above), optional-content settings, language and version, and
// the named destinations on the chosen pages (named-dests.ts), so that their links still lead
// somewhere; a link or action to a named destination on another page (or to none) is dropped like
// one to an explicit destination there. The outline, page labels, structure tree and threads
// describe the whole document by page, and go.
import type { PageRange } from "./pages.ts";
import type { PdfDocument } from "./document.ts";
import { namedDests } from "./named-dests.ts";
import { entry, isDict, isName, isRef, isString, PdfError, type PdfDict, type PdfValue } from "./syntax.ts";

/** A written PDF: its size, and its bytes, joined only when asked for (the size decides first
 * whether it can be sent at all). */
export type PdfPieces = { size: number; bytes(): Buffer };

const CATALOG_KEPT = ["AcroForm", "OCProperties", "Lang", "Version"];
/** How deep a judgement follows links from an object (annotation → action → destination → page,
 * a reference and the object it names taking a step each). */
const JUDGE_DEPTH = 8;

export function pagesSubset(doc: PdfDocument, range: PageRange): PdfPieces {
  const chosen = doc.pages(range);
  // New numbers: 1 the catalog, 2 the page tree, then the pages, then objects as they are reached.
  // A page the tree lists twice is written twice; what refers to it refers to the first.
  const renumbered = new Map<number, number>([[doc.root.num, 1]]);
  chosen.forEach((page, i) => renumbered.has(page.ref.num) || renumbered.set(page.ref.num, 3 + i));
  const chosenNums = new Set(chosen.map((page) => page.ref.num));
  let nextNum = 3 + chosen.length;
  const queue: number[] = [];
  /** Objects known to lead out, and those judged with the whole depth not to. */
  const judged = new Map<number, boolean>();
  const catalog = doc.resolve(doc.root);
  if (!isDict(catalog)) throw new PdfError("its document catalog is missing");
  const named = namedDests(catalog, doc.resolve);
  /** Whether destination `dest` (explicit, or a dictionary with one as /D) is on a chosen page. */
  const onChosenPage = (dest: PdfValue | undefined): boolean => {
    let value = doc.resolve(dest);
    if (isDict(value)) value = doc.resolve(entry(value, "D"));
    return Array.isArray(value) && isRef(value[0]) && chosenNums.has(value[0].num);
  };

  /** Whether `value` is a page or page-tree node: by its /Type, or, for a page without one, by its
   * /Parent, a page-tree node. The other pages are never listed: that would read the whole tree. */
  const isPageObject = (value: PdfValue | undefined): boolean => {
    if (!isDict(value)) return false;
    const type = entry(value, "Type");
    if (isName(type)) return type.name === "Page" || type.name === "Pages";
    const parent = value.entries.has("Contents") ? doc.resolve(entry(value, "Parent")) : undefined;
    const parentType = isDict(parent) ? entry(parent, "Type") : undefined;
    return isName(parentType) && parentType.name === "Pages";
  };
  const pageLeftOut = (value: PdfValue | undefined) => isRef(value) && !chosenNums.has(value.num) && isPageObject(doc.resolve(value));
  /** Whether `value` leads to a page left out, and so is dropped. */
  const leadsOut = (value: PdfValue | undefined, depth: number): boolean => {
    if (depth > JUDGE_DEPTH || value === undefined) return false;
    if (isRef(value)) {
      if (chosenNums.has(value.num)) return false;
      const known = judged.get(value.num);
      if (known !== undefined) return known;
      const verdict = leadsOut(doc.resolve(value), depth + 1);
      // A "no" found deeper down may only mean the depth ran out.
      if (verdict || depth === 0) judged.set(value.num, verdict);
      return verdict;
    }
    if (Array.isArray(value)) return value.length > 0 && pageLeftOut(value[0]);
    if (!isDict(value)) return false;
    if (isPageObject(value)) return true;
    // An annotation's /P is its page (ISO 32000 §12.5.2), known to be one without reading it: a
    // form's fields list the widgets of every page, whose pages would otherwise all be read.
    const on = entry(value, "P");
    if (isRef(on) && !chosenNums.has(on.num) && (value.entries.has("Rect") || pageLeftOut(on))) return true;
    const action = entry(value, "S");
    for (const key of ["Dest", "D", "A"]) {
      const target = entry(value, key);
      // A name or string as /Dest, or as a GoTo action's /D, is a named destination (a GoToR's is
      // one in the other file).
      const local = key === "Dest" || (key === "D" && isName(action) && action.name === "GoTo");
      if ((isName(target) || isString(target)) && local) {
        const dest = named.lookup(target);
        if (dest === undefined || !onChosenPage(dest)) return true;
      } else if ((isRef(target) || Array.isArray(target) || isDict(target)) && leadsOut(target, depth + 1)) return true;
    }
    const kids = entry(value, "Kids");
    return Array.isArray(kids) && kids.length > 0 && kids.every((kid) => leadsOut(kid, depth + 1));
  };

  /** `value` as PDF source with references renumbered, or undefined when it is dropped. */
  const write = (value: PdfValue, top = false): string | undefined => {
    if (value === null) return "null";
    if (typeof value === "boolean") return String(value);
    if (typeof value === "number") return formatNumber(value);
    if (isRef(value)) {
      const known = renumbered.get(value.num);
      if (known !== undefined) return `${known} 0 R`;
      if (leadsOut(value, 0)) return undefined;
      const target = doc.resolve(value);
      if (target === null || target === undefined) return "null";
      renumbered.set(value.num, nextNum++);
      queue.push(value.num);
      return `${nextNum - 1} 0 R`;
    }
    if (!top && leadsOut(value, 0)) return undefined;
    if (Array.isArray(value)) return `[${value.flatMap((item) => write(item) ?? []).join(" ")}]`;
    if (isName(value)) return writeName(value.name);
    if (isString(value)) return value.raw;
    return writeDict(value.entries);
  };
  /** A dictionary of `entries` (dropped ones left out), and `extra` source entries. */
  const writeDict = (entries: Iterable<[string, { value: PdfValue }]>, ...extra: string[]): string => {
    const parts: string[] = [];
    for (const [key, { value }] of entries) {
      const written = write(value);
      if (written !== undefined) parts.push(`${writeName(key)} ${written}`);
    }
    return `<< ${[...parts, ...extra].join(" ")} >>`;
  };

  /** The catalog's entries for the named destinations on the chosen pages, in the form the file
   * has them: a /Dests dictionary, a name tree (of one node, its keys in order), or both. */
  const namedDestsOnPages = (): string[] => {
    const entries = <K>(dests: Iterable<[K, PdfValue]>, key: (k: K) => string) =>
      [...dests].flatMap(([k, dest]) => {
        const written = onChosenPage(dest) ? write(dest) : undefined;
        return written === undefined ? [] : [`${key(k)} ${written}`];
      });
    const byName = entries(named.byName, writeName);
    const sorted = [...named.byString].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, { raw, value }]) => [raw, value] as [string, PdfValue]);
    const byString = entries(sorted, (raw) => raw);
    return [...(byName.length > 0 ? [`/Dests << ${byName.join(" ")} >>`] : []), ...(byString.length > 0 ? [`/Names << /Dests << /Names [${byString.join(" ")}] >> >>`] : [])];
  };

  // The binary comment tells transfer programs the file is not text.
  const out = fileWriter(`%PDF-${pdfVersion(doc.bytes)}\n%\xe2\xe3\xcf\xd3\n`);
  const offsets: number[] = [];
  const object = (num: number, body: string, data?: Buffer) => {
    offsets[num] = out.size();
    if (data) out.add(`${num} 0 obj\n${body}\nstream\n`, data, "\nendstream\nendobj\n");
    else out.add(`${num} 0 obj\n${body}\nendobj\n`);
  };

  object(1, writeDict([...catalog.entries].filter(([key]) => CATALOG_KEPT.includes(key)), "/Type /Catalog /Pages 2 0 R", ...namedDestsOnPages()));
  object(2, `<< /Type /Pages /Kids [${chosen.map((_, i) => `${3 + i} 0 R`).join(" ")}] /Count ${chosen.length} >>`);
  chosen.forEach((page, i) => {
    const own = [...page.dict.entries].filter(([key]) => key !== "Parent" && key !== "B");
    const inherited = [...page.inherited].filter(([key]) => !page.dict.entries.has(key));
    object(3 + i, writeDict([...own, ...inherited], "/Parent 2 0 R"));
  });
  const info = doc.trailer.entries.get("Info")?.value;
  const infoRef = isRef(info) ? write(info) : undefined;
  for (let i = 0; i < queue.length; i++) {
    const num = queue[i];
    const value = doc.resolve({ kind: "ref", num, gen: 0 })!;
    const data = isDict(value) ? doc.streamData(num) : undefined;
    if (data && isDict(value)) {
      object(renumbered.get(num)!, writeDict([...value.entries].filter(([key]) => key !== "Length"), `/Length ${data.length}`), data);
    } else object(renumbered.get(num)!, write(value, true) ?? "null");
  }

  const size = nextNum;
  const xref = out.size();
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let num = 1; num < size; num++) table += `${String(offsets[num]).padStart(10, "0")} 00000 n \n`;
  const id = doc.trailer.entries.get("ID");
  const extra = `${infoRef ? ` /Info ${infoRef}` : ""}${id && Array.isArray(id.value) && id.value.every(isString) ? ` /ID ${write(id.value)}` : ""}`;
  out.add(`${table}trailer\n<< /Size ${size} /Root 1 0 R${extra} >>\nstartxref\n${xref}\n%%EOF\n`);
  return { size: out.size(), bytes: out.bytes };
}

/** A file written in pieces (text as latin1, bytes as they are) after `header`, and its size so far. */
export function fileWriter(header: string) {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (...parts: (string | Buffer)[]) => {
    for (const part of parts) {
      const bytes = typeof part === "string" ? Buffer.from(part, "latin1") : part;
      chunks.push(bytes);
      size += bytes.length;
    }
  };
  add(header);
  return { add, size: () => size, bytes: () => Buffer.concat(chunks, size) };
}

/** The version of the file's header; 1.7 when it names none readable. */
function pdfVersion(bytes: Buffer): string {
  const at = bytes.indexOf("%PDF-", 0, "latin1");
  return /^\d\.\d/.exec(bytes.toString("latin1", at + 5, at + 8))?.[0] ?? "1.7";
}

/** A number as PDF writes it: no exponent, which PDF does not have. */
function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const text = String(value);
  return text.includes("e") ? value.toFixed(10).replace(/\.?0+$/, "") : text;
}

/** A name with the characters PDF does not allow in one as #xx. */
function writeName(name: string): string {
  let out = "/";
  for (const char of name) {
    const code = char.charCodeAt(0);
    out += code < 0x21 || code > 0x7e || "#()<>[]{}/%".includes(char) ? `#${code.toString(16).padStart(2, "0")}` : char;
  }
  return out;
}
