// The tree the Markdown renderer builds before any element: plain data, tested without a browser,
// turned into elements by markdown-dom.ts. Strings are text, shown as text.

export type MdElement = {
  tag: "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "em" | "strong" | "del" | "code" | "pre" | "ul" | "ol" | "li" | "blockquote" | "a" | "hr";
  /** An "a"'s target: always an http(s) address. */
  href?: string;
  /** A "pre"'s language, as its fence named it. */
  lang?: string;
  /** An "ol"'s first number, when not 1. */
  start?: number;
  children: MdNode[];
};
export type MdNode = string | MdElement;

/** A top-level block and the source lines it came from (equal sources render equally: a view
 * keeps the elements of the blocks whose source did not change). */
export type MdBlock = { source: string; node: MdElement };
