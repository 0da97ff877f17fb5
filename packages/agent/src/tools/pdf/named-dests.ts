// Named destinations (ISO 32000 §12.3.2.3): a link, action or outline item may give where it goes
// by a name, which the catalog's /Dests dictionary (PDF 1.1, keyed by names) or its /Names /Dests
// name tree (PDF 1.2, keyed by strings) turns into a destination.
import { entry, isDict, isName, isRef, isString, stringBytes, type PdfDict, type PdfName, type PdfString, type PdfValue } from "./syntax.ts";

type Resolve = (value: PdfValue | undefined) => PdfValue | undefined;

export type NamedDests = {
  /** The /Dests dictionary's destinations, by name. */
  byName: Map<string, PdfValue>;
  /** The name tree's, by the bytes of their strings, each with its string as the file writes it. */
  byString: Map<string, { raw: string; value: PdfValue }>;
  /** The destination `target` names, when there is one: a name is looked up in /Dests and a
   * string in the name tree, each then in the other, as viewers do for files that mix them up. */
  lookup(target: PdfName | PdfString): PdfValue | undefined;
};

/** Name-tree nodes read at most: more than a document of as many destinations as pages has. */
const MAX_NODES = 100_000;
/** Deeper than a real name tree goes. */
const MAX_DEPTH = 32;

/** The named destinations of the document whose catalog is `catalog`. The parts of a broken name
 * tree (a loop, a node missing, nesting past MAX_DEPTH or more than MAX_NODES nodes) are passed
 * over: the names in them lead nowhere, as in a viewer. */
export function namedDests(catalog: PdfDict, resolve: Resolve): NamedDests {
  const byName = new Map<string, PdfValue>();
  const dests = resolve(entry(catalog, "Dests"));
  if (isDict(dests)) for (const [key, { value }] of dests.entries) byName.set(key, value);

  const byString = new Map<string, { raw: string; value: PdfValue }>();
  const names = resolve(entry(catalog, "Names"));
  const above = new Set<number>();
  let visits = 0;
  const walk = (node: PdfValue | undefined, depth: number) => {
    if (depth > MAX_DEPTH || ++visits > MAX_NODES || (isRef(node) && above.has(node.num))) return;
    const dict = resolve(node);
    if (!isDict(dict)) return;
    const pairs = resolve(entry(dict, "Names"));
    if (Array.isArray(pairs)) {
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        const key = pairs[i];
        if (isString(key) && !byString.has(stringBytes(key.raw))) byString.set(stringBytes(key.raw), { raw: key.raw, value: pairs[i + 1] });
      }
    }
    const kids = resolve(entry(dict, "Kids"));
    if (!Array.isArray(kids)) return;
    if (isRef(node)) above.add(node.num);
    for (const kid of kids) walk(kid, depth + 1);
    if (isRef(node)) above.delete(node.num);
  };
  if (isDict(names)) walk(entry(names, "Dests"), 0);

  const lookup = (target: PdfName | PdfString) => {
    if (isName(target)) return byName.get(target.name) ?? byString.get(target.name)?.value;
    const bytes = stringBytes(target.raw);
    return byString.get(bytes)?.value ?? byName.get(bytes);
  };
  return { byName, byString, lookup };
}
