// The page tree (ISO 32000 §7.7.3), walked only as far as the pages asked for: each node's /Count
// says how many pages lie under it, so a subtree that holds none of them is passed over unread.
// Reading a page reads the nodes on the way to it, and their kids (for their counts), not the
// rest of the tree.
//
// Counts are trusted where the walk does not go, as pdf.js trusts them: the pages are numbered by
// them. Where it goes they are checked: a node whose kids hold more or fewer pages than its /Count
// says is an error naming it, not a page silently missed, repeated or taken from the wrong place.
import { entry, isDict, isName, isRef, PdfError, type PdfDict, type PdfRef, type PdfValue } from "./syntax.ts";

/** A page as the page tree gives it: its own dictionary, and the entries it inherits from the
 * nodes above it (for writing them into the page when the tree is rebuilt). */
export type PdfPage = { ref: PdfRef; dict: PdfDict; inherited: PdfDict["entries"] };

type Resolve = (value: PdfValue | undefined) => PdfValue | undefined;

/** Entries of a page-tree node that its pages inherit (ISO 32000 §7.7.3.4). */
const INHERITABLE = ["Resources", "MediaBox", "CropBox", "Rotate"];
/** More pages than any real document has: a tree claiming more is taken as corrupt. */
export const MAX_PAGES = 100_000;
/** Deeper than a real page tree goes (a balanced tree of a million pages is a few levels deep). */
const MAX_DEPTH = 64;

export type PageTree = {
  /** How many pages the document has: the root's /Count (its pages counted when it has none). */
  count: number;
  /** Pages `first` to `last`, counting from 1, within the count. A node listed twice is there
   * twice (a page repeated is a page each time, as poppler and qpdf read it); only one that is its
   * own ancestor is a loop. */
  pages(first: number, last: number): PdfPage[];
};

/** The tree under the catalog's /Pages. `resolve` reads an object and keeps it; `peek` reads one
 * without keeping it, for the nodes passed over, whose counts are all that is needed of them. */
export function pageTree(catalog: PdfDict, resolve: Resolve, peek: Resolve): PageTree {
  const top = entry(catalog, "Pages");
  if (!isRef(top)) throw new PdfError("its catalog has no page tree (/Pages)");
  // Repeated nodes could make a small tree's walk endless; one walk visits at most this many.
  let visits = 0;
  const above = new Set<number>();
  const enter = (ref: PdfRef, depth: number) => {
    if (above.has(ref.num) || depth > MAX_DEPTH) throw new PdfError("its page tree loops back on itself");
    if (++visits > 2 * MAX_PAGES) throw new PdfError(`its page tree has more than ${2 * MAX_PAGES} nodes`);
  };

  /** How many pages `ref` stands for: 1 for a page, its /Count for a node (or, when it has no
   * usable one, the count of its kids). */
  const countOf = (ref: PdfValue, depth: number, read: Resolve): number => {
    if (!isRef(ref)) throw new PdfError("its page tree lists a page that is not an object reference");
    enter(ref, depth);
    const { kids, dict } = nodeOf(ref, read);
    if (!kids) return 1;
    const count = entry(dict, "Count");
    if (typeof count === "number" && Number.isInteger(count) && count >= 0) {
      if (count > MAX_PAGES) throw new PdfError(`its page tree holds more than ${MAX_PAGES} pages`);
      return count;
    }
    above.add(ref.num);
    let sum = 0;
    for (const kid of kids) sum += countOf(kid, depth + 1, peek);
    above.delete(ref.num);
    if (sum > MAX_PAGES) throw new PdfError(`its page tree holds more than ${MAX_PAGES} pages`);
    return sum;
  };

  /** Pages `first`–`last` (from 0) of those under `ref`, which stands for `count` pages, into `out`. */
  const collect = (ref: PdfRef, count: number, inherited: PdfPage["inherited"], first: number, last: number, depth: number, out: PdfPage[]) => {
    const { dict, kids } = nodeOf(ref, resolve);
    if (!kids) {
      out.push({ ref, dict, inherited });
      return;
    }
    const passed = new Map(inherited);
    for (const key of INHERITABLE) {
      const own = dict.entries.get(key);
      if (own) passed.set(key, own);
    }
    above.add(ref.num);
    const counts = kids.map((kid) => countOf(kid, depth + 1, peek));
    const held = counts.reduce((sum, n) => sum + n, 0);
    if (held !== count) throw new PdfError(`its page tree does not add up: page-tree object ${ref.num} says it holds ${count} pages, but its kids hold ${held}`);
    let start = 0;
    kids.forEach((kid, i) => {
      const end = start + counts[i];
      if (counts[i] > 0 && end > first && start <= last) collect(kid as PdfRef, counts[i], passed, Math.max(0, first - start), Math.min(counts[i], last - start + 1) - 1, depth + 1, out);
      start = end;
    });
    above.delete(ref.num);
  };

  const count = countOf(top, 0, resolve);
  return {
    count,
    pages(first, last) {
      if (!Number.isInteger(first) || !Number.isInteger(last) || first < 1 || last < first || last > count) throw new RangeError(`pages ${first}-${last} are not within 1-${count}`);
      // A walk that failed may have left its nodes behind.
      above.clear();
      visits = 0;
      const out: PdfPage[] = [];
      collect(top, count, new Map(), first - 1, last - 1, 0, out);
      return out;
    },
  };
}

/** A page-tree object: a node, with its kids, or a page (without). */
function nodeOf(ref: PdfRef, read: Resolve): { dict: PdfDict; kids?: PdfValue[] } {
  const dict = read(ref);
  if (!isDict(dict)) throw new PdfError(`page-tree object ${ref.num} is missing`);
  const kids = read(entry(dict, "Kids"));
  const type = entry(dict, "Type");
  return Array.isArray(kids) && !(isName(type) && type.name === "Page") ? { dict, kids } : { dict };
}
