// PDFs for the model: Read returns a PDF as a document content block, which the model reads as text
// and page images. As Claude Code's Read: at most 10 pages unless `pages` names a range, and at most
// 20 pages a call.
import type { ToolOutput } from "../types.ts";
import { openPdf, type PdfDocument } from "./pdf-document.ts";
import { parsePageRange, withPagesOnly } from "./pdf-pages.ts";
import { PdfError } from "./pdf-syntax.ts";
import { formatBytes, wholeFile } from "./paths.ts";

/** The most pages Read sends of a PDF without `pages`. */
export const PDF_WHOLE_MAX_PAGES = 10;
/** The most pages one `pages` range may span. */
export const PDF_MAX_PAGES_PER_READ = 20;

export async function readPdf(file: string, shown: string, size: number, pages: string | undefined, maxBytes: number): Promise<ToolOutput> {
  const text = `Extract its text through Bash instead, for example: pdftotext -f 1 -l 20 "${shown}" - | head -500`;
  if (size > maxBytes) {
    return {
      content: `${shown} is ${formatBytes(size)}; Read sends PDFs of at most ${formatBytes(maxBytes)} to the model. ${text}, or copy out the pages you need (qpdf "${shown}" --pages . 1-20 -- part.pdf) and Read that.`,
      isError: true,
    };
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
  const count = doc.pages.length;
  const counted = `${count} page${count === 1 ? "" : "s"}`;
  if (count === 0) return { content: `${shown} is a PDF without pages.`, isError: true };
  if (pages === undefined) {
    if (count > PDF_WHOLE_MAX_PAGES) {
      return {
        content: `${shown} has ${counted}; Read gives at most ${PDF_WHOLE_MAX_PAGES} pages of a PDF at once. Call Read again with pages, e.g. pages: "1-${PDF_WHOLE_MAX_PAGES}" (at most ${PDF_MAX_PAGES_PER_READ} pages a call).`,
        isError: true,
      };
    }
    return pdfOutput(bytes, `Read PDF ${shown} (${counted}, ${formatBytes(bytes.length)}).`);
  }
  const range = parsePageRange(pages, count, PDF_MAX_PAGES_PER_READ);
  if ("error" in range) return { content: range.error, isError: true };
  const picked = range.first === range.last ? `page ${range.first}` : `pages ${range.first}-${range.last}`;
  const summary = `Read ${picked} of PDF ${shown} (${counted}); the document shown holds only ${range.first === range.last ? "that page" : "those pages"}, so its page 1 is page ${range.first} of the file.`;
  return pdfOutput(withPagesOnly(doc, range), summary);
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
