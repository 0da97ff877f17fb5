import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../truncate.ts";
import type { ToolOutput } from "../types.ts";
import { remember, snapshotFile } from "./file-state.ts";
import { parseNotebook } from "./notebook/notebook.ts";
import { displayPath, errorCode, errorText, resolvePath, specialFileProblem } from "./paths.ts";
import { numberedLine } from "./numbered-line.ts";
import { isImagePath, readImage } from "./image/read-image.ts";
import { PDF_MAX_PAGES_PER_READ, PDF_WHOLE_MAX_PAGES, readPdf } from "./pdf/read-pdf.ts";
import { limitsOf, type ToolState } from "./state.ts";

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
/** Room left below the loop's output cap for the closing note. */
const OUTPUT_BUDGET = MAX_TOOL_OUTPUT_CHARS - 500;

const description = `Reads a file from the local filesystem.

Usage:
- file_path may be absolute or relative to the shell's current directory (where Bash's \`cd\` left it; at first the project's directory).
- By default it returns up to ${READ_DEFAULT_LIMIT} lines from the start of the file. For long files, pass offset (the line number to start at, counting from 1) and limit (how many lines) to read a specific part; when the output stops early it says which offset to continue from.
- Lines longer than ${READ_MAX_LINE_CHARS} characters are cut.
- The result is numbered like cat -n: the line number, a tab, then the line exactly as in the file. The number and tab are not part of the file; never include them in an Edit's old_string.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images, so you can look at screenshots and diagrams.
- Jupyter notebooks (.ipynb) are shown as their cells, each with its id, type, source and outputs.
- PDF files (.pdf) are shown to you as documents: their text and each page as an image. A PDF of more than ${PDF_WHOLE_MAX_PAGES} pages, or too large to send whole, must be read in parts: pass pages, a page ("3") or a range ("1-5"), at most ${PDF_MAX_PAGES_PER_READ} pages a call.
- Other binary files are refused.
- It reads files, not directories: use Glob, or ls through Bash, to list a directory.
- Read every file you are going to edit first, and when several files may be useful, read them in one reply so they load at the same time.`;

export const readTool = defineTool({
  name: "Read",
  readOnly: true,
  description,
  parameters: z.strictObject({
    file_path: z.string().min(1).describe("The path of the file to read, absolute or relative to the shell's current directory"),
    offset: z.number().int().min(1).optional().describe("The line number to start reading from (1 is the first line). Only needed for files too long to read at once"),
    limit: z.number().int().min(1).optional().describe(`The number of lines to read (default ${READ_DEFAULT_LIMIT})`),
    pages: z.string().optional().describe(`The pages of a PDF file to read, e.g. "3", "1-5" or "10-" (counting from 1). Only for PDF files; at most ${PDF_MAX_PAGES_PER_READ} pages a call`),
  }),
  async execute({ file_path, offset = 1, limit = READ_DEFAULT_LIMIT, pages }, { cwd, signal, state }) {
    const target = resolvePath(cwd, file_path);
    const shown = displayPath(cwd, target);
    let stat;
    try {
      stat = await fs.stat(target);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return { content: `File does not exist: ${shown} (working directory: ${cwd}).`, isError: true };
      return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
    }
    if (stat.isDirectory()) return { content: `${shown} is a directory, not a file. Use Glob or Bash (ls) to list its contents.`, isError: true };
    const special = specialFileProblem(stat, shown);
    if (special) return { content: special, isError: true };
    // Taken before reading: if the file changes meanwhile, a later write is refused rather than
    // allowed over content the model has not seen.
    const snapshot = await snapshotFile(state, target);
    const output = await readByType(target, shown, stat.size, { offset, limit, pages, signal, state });
    if (!output.isError) remember(state, target, snapshot);
    return output;
  },
});

type ReadRequest = { offset: number; limit: number; pages: string | undefined; signal: AbortSignal; state: ToolState | undefined };

async function readByType(target: string, shown: string, size: number, request: ReadRequest): Promise<ToolOutput> {
  const extension = path.extname(target).toLowerCase();
  if (extension === ".pdf") return readPdf(target, shown, size, request.pages, limitsOf(request.state));
  if (request.pages !== undefined) {
    return { content: `pages applies to PDF files only; ${shown} is not one. Use offset and limit to read part of a text file.`, isError: true };
  }
  if (isImagePath(target)) return readImage(target, shown, size, limitsOf(request.state).maxImageBytes, request.signal);
  // Files of /proc say they are empty and are not: an empty file is known once read.
  if (extension === ".ipynb") return readNotebook(target, shown, request);
  const encoding = await textEncodingOf(target);
  if (encoding === "binary") return { content: `${shown} is a binary file; Read only shows text files, images and notebooks.`, isError: true };
  return readLines(target, shown, request.offset, request.limit, request.signal, encoding);
}

async function readNotebook(target: string, shown: string, request: ReadRequest): Promise<ToolOutput> {
  let text: string;
  try {
    text = await fs.readFile(target, "utf8");
  } catch (error) {
    return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
  }
  const parsed = parseNotebook(text, shown);
  // Imported for a notebook only: a run that reads none starts sooner without it.
  if ("notebook" in parsed) return (await import("./notebook/read-notebook.ts")).renderNotebook(parsed.notebook, shown, limitsOf(request.state).maxImageBytes);
  const asText = await readLines(target, shown, request.offset, request.limit, request.signal);
  return asText.isError ? asText : { content: `(${parsed.error} It is shown as plain text.)\n\n${asText.content}` };
}

type TextEncoding = "utf8" | "utf16le" | "utf16be";

/** How the file's text is encoded, from its first bytes: UTF-16 when it starts with that byte-order
 * mark (as Windows tools write it), binary when a zero byte comes early, else UTF-8. */
async function textEncodingOf(file: string): Promise<TextEncoding | "binary"> {
  const handle = await fs.open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0);
    if (bytesRead >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return "utf16le";
    if (bytesRead >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) return "utf16be";
    return buffer.subarray(0, bytesRead).includes(0) ? "binary" : "utf8";
  } finally {
    await handle.close();
  }
}

/** The stream's text, piece by piece; a character split between two chunks comes whole with the
 * second. (Node's own stream decoding knows no big-endian UTF-16.) */
async function* decoded(chunks: AsyncIterable<Buffer>, encoding: TextEncoding): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding === "utf8" ? "utf-8" : encoding === "utf16le" ? "utf-16le" : "utf-16be", { ignoreBOM: true });
  for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** Lines [offset, offset + limit) of `file`, numbered. Lines are split at "\n" (a "\r" before it
 * goes too) as the file streams by; no more than READ_MAX_LINE_CHARS of a line is ever held, so a
 * file that is one enormous line costs no more memory than a short one. */
async function readLines(file: string, shown: string, offset: number, limit: number, signal: AbortSignal, encoding: TextEncoding = "utf8"): Promise<ToolOutput> {
  const stream = createReadStream(file, { signal, highWaterMark: 64 * 1024 });
  const out: string[] = [];
  let size = 0;
  let lineNumber = 0;
  let stoppedAt = 0; // first line not shown because of the size budget
  let more = false;
  /** The current line's first characters (one more than are shown, to tell a cut line) and its
   * full length. */
  let line = "";
  let length = 0;
  const take = (piece: string) => {
    if (line.length <= READ_MAX_LINE_CHARS) line += piece.slice(0, READ_MAX_LINE_CHARS + 1 - line.length);
    length += piece.length;
  };
  /** Ends the current line; true when reading should stop. */
  const endLine = (): boolean => {
    let text = line;
    let full = length;
    line = "";
    length = 0;
    if (full === text.length && text.endsWith("\r")) {
      text = text.slice(0, -1);
      full--;
    }
    lineNumber++;
    if (lineNumber < offset) return false;
    if (lineNumber >= offset + limit) {
      more = true;
      return true;
    }
    if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) {
      text = text.slice(1);
      full--;
    }
    if (full > READ_MAX_LINE_CHARS) text = `${text.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]`;
    const numbered = numberedLine(lineNumber, text);
    if (size + numbered.length + 1 > OUTPUT_BUDGET && out.length > 0) {
      stoppedAt = lineNumber;
      return true;
    }
    out.push(numbered);
    size += numbered.length + 1;
    return false;
  };
  try {
    let stopped = false;
    reading: for await (const chunk of decoded(stream, encoding)) {
      let from = 0;
      for (;;) {
        const newline = chunk.indexOf("\n", from);
        if (newline === -1) {
          take(from === 0 ? chunk : chunk.slice(from));
          break;
        }
        take(chunk.slice(from, newline));
        from = newline + 1;
        if (endLine()) {
          stopped = true;
          break reading;
        }
      }
    }
    // The last line, when the file does not end with a newline.
    if (!stopped && length > 0) endLine();
  } catch (error) {
    if (signal.aborted) return { content: "Interrupted by user", isError: true };
    return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
  } finally {
    stream.destroy();
  }
  if (lineNumber === 0) return { content: `(The file ${shown} exists but is empty.)` };
  if (out.length === 0) {
    return { content: `(${shown} has ${lineNumber} line${lineNumber === 1 ? "" : "s"}; offset ${offset} is past the end.)` };
  }
  let text = out.join("\n");
  if (stoppedAt) text += `\n\n(Output stopped at line ${stoppedAt - 1} to stay within the size limit. Call Read with offset ${stoppedAt} to continue.)`;
  else if (more) text += `\n\n(More lines follow. Call Read with offset ${offset + limit} to continue.)`;
  return { content: text };
}
