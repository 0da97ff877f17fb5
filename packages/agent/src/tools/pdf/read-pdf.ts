// PDFs for the model: Read returns a PDF as a document content block, which the model reads as text
// and page images. As Claude Code's Read: at most 10 pages unless `pages` names a range, and at most
// 20 pages a call. With `pages`, what is sent is a new PDF of just those pages, so that a few pages
// of a book too large to send whole can be read.
import type { ToolOutput } from "../../types.ts";
import { openPdf, type PdfDocument } from "./document.ts";
import { parsePageRange, withPagesOnly, type PageRange } from "./pages.ts";
import { pagesSubset } from "./subset.ts";
import { PdfError } from "./syntax.ts";
import { formatBytes, wholeFile } from "../paths.ts";
import type { ToolLimits } from "../state.ts";

/** The most pages Read sends of a PDF without `pages`. */
export const PDF_WHOLE_MAX_PAGES = 10;
/** The most pages one `pages` range may span. */
export const PDF_MAX_PAGES_PER_READ = 20;

type PdfLimits = Pick<ToolLimits, "maxPdfBytes" | "maxPdfFileBytes">;

export async function readPdf(file: string, shown: string, size: number, pages: string | undefined, limits: PdfLimits): Promise<ToolOutput> {
  const text = `Extract its text through Bash instead, for example: pdftotext -f 1 -l 20 "${shown}" - | head -500`;
  const copyOut = `copy out the pages you need (qpdf "${shown}" --pages . 1-20 -- part.pdf) and Read that`;
  const sent = `Read sends PDFs of at most ${formatBytes(limits.maxPdfBytes)} to the model`;
  if (size > limits.maxPdfFileBytes) {
    return { content: `${shown} is ${formatBytes(size)}; ${sent}, and takes pages out of PDFs of at most ${formatBytes(limits.maxPdfFileBytes)}. ${text}, or ${copyOut}.`, isError: true };
  }
  const bytes = await wholeFile(file, shown);
  if (!Buffer.isBuffer(bytes)) return bytes;
  let doc: PdfDocument;
  try {
    doc = openPdf(bytes);
  } catch (error) {
    if (!(error instanceof PdfError)) throw error;
    return { content: `${shown} cannot be read as a PDF: ${error.message}. ${text}`, isError: true };
  }
  const count = doc.pageCount;
  const counted = `${count} page${count === 1 ? "" : "s"}`;
  if (count === 0) return { content: `${shown} is a PDF without pages.`, isError: true };
  if (pages === undefined) {
    if (bytes.length > limits.maxPdfBytes) {
      const fit = pagesThatFit(count, bytes.length, limits.maxPdfBytes);
      return {
        content: `${shown} is ${formatBytes(bytes.length)}; ${sent}. It has ${counted}: call Read again with pages, e.g. pages: "${fit === 1 ? "1" : `1-${fit}`}", to read a few of them. Or extract its text through Bash: pdftotext -f 1 -l 20 "${shown}" - | head -500, or ${copyOut}.`,
        isError: true,
      };
    }
    if (count > PDF_WHOLE_MAX_PAGES) {
      return {
        content: `${shown} has ${counted}; Read gives at most ${PDF_WHOLE_MAX_PAGES} pages of a PDF at once. Call Read again with pages, e.g. pages: "1-${PDF_WHOLE_MAX_PAGES}" (at most ${PDF_MAX_PAGES_PER_READ} pages a call).`,
        isError: true,
      };
    }
    const broken = brokenPageTree(doc);
    if (broken) return { content: `${shown} cannot be read as a PDF: ${broken}. ${text}`, isError: true };
    return pdfOutput(bytes, `Read PDF ${shown} (${counted}, ${formatBytes(bytes.length)}).`);
  }
  const range = parsePageRange(pages, count, PDF_MAX_PAGES_PER_READ);
  if ("error" in range) return { content: range.error, isError: true };
  const picked = range.first === range.last ? `page ${range.first}` : `pages ${range.first}-${range.last}`;
  const chosen = pagesOf(doc, range, limits.maxPdfBytes);
  const { first, last } = range;
  const theirText = `Extract ${first === last ? "its" : "their"} text through Bash instead, for example: pdftotext -f ${first} -l ${last} "${shown}" -`;
  if ("error" in chosen) {
    const which = first === last ? `Page ${first} of ${shown} cannot be written as a PDF of its own` : `Pages ${first}-${last} of ${shown} cannot be written as a PDF of their own`;
    return { content: `${which}: ${chosen.error}. ${theirText}`, isError: true };
  }
  if (chosen.size > limits.maxPdfBytes) {
    if (first === last) return { content: `Page ${first} of ${shown} comes to ${formatBytes(chosen.size)}; ${sent}. ${theirText}`, isError: true };
    const fit = pagesThatFit(last - first + 1, chosen.size, limits.maxPdfBytes);
    return {
      content: `Pages ${first}-${last} of ${shown} come to ${formatBytes(chosen.size)}; ${sent}. Read fewer pages at a time, e.g. pages: "${fit === 1 ? first : `${first}-${first + fit - 1}`}".`,
      isError: true,
    };
  }
  const summary = `Read ${picked} of PDF ${shown} (${counted}); the document shown holds only ${range.first === range.last ? "that page" : "those pages"}, so its page 1 is page ${range.first} of the file.`;
  return pdfOutput(chosen.bytes(), summary);
}

/** What is wrong with the page tree of a document sent whole, if anything. Opening it read only the
 * root's /Count; walking to each of its few pages checks the rest, as a viewer would. */
function brokenPageTree(doc: PdfDocument): string | undefined {
  try {
    doc.pages({ first: 1, last: doc.pageCount });
    return undefined;
  } catch (error) {
    if (!(error instanceof PdfError)) throw error;
    return error.message;
  }
}

/** The PDF of just `range`'s pages. It is written afresh whenever pages are asked for, not only
 * when the file is too large to send: the document stays in the conversation and goes to the model
 * again with every later request, so each byte of the other pages would be paid for again and again.
 * The older way, an update appended to the whole file (withPagesOnly), needs none of the pages'
 * objects to be read, and so remains for a file within the limit whose pages cannot be. */
function pagesOf(doc: PdfDocument, range: PageRange, maxBytes: number): { size: number; bytes(): Buffer } | { error: string } {
  try {
    return pagesSubset(doc, range);
  } catch (error) {
    if (!(error instanceof PdfError)) throw error;
    if (doc.bytes.length > maxBytes) return { error: error.message };
    return updateOf(doc, range);
  }
}

/** The pages by withPagesOnly, or what is wrong with the page tree on the way to them, which it
 * reads too. */
function updateOf(doc: PdfDocument, range: PageRange): { size: number; bytes(): Buffer } | { error: string } {
  try {
    const updated = withPagesOnly(doc, range);
    return { size: updated.length, bytes: () => updated };
  } catch (error) {
    if (!(error instanceof PdfError)) throw error;
    return { error: error.message };
  }
}

/** About how many of `count` pages that come to `size` bytes fit in `maxBytes` (at least 1). */
function pagesThatFit(count: number, size: number, maxBytes: number): number {
  return Math.max(1, Math.min(count, PDF_MAX_PAGES_PER_READ, Math.floor((count * maxBytes) / size)));
}

function pdfOutput(bytes: Buffer, summary: string): ToolOutput {
  return {
    content: summary,
    blocks: [
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: bytes.toString("base64") } },
      { type: "text", text: summary },
    ],
  };
}
