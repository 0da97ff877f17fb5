// A workspace file opened by openFile() as an HTTP answer: its bytes streamed, typed, and never run
// as a page of this server. Shared by the files routes and an execution's artifacts.
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import type { Context } from "hono";
import { contentTypeOf } from "./file-types.ts";
import type { FileInfo } from "./workspace-files.ts";

/** The file's bytes as the answer (its headers alone to a HEAD), as an attachment with `attachment`;
 * the file is closed once sent. */
export async function fileAnswer(c: Context, file: FileHandle, info: FileInfo, attachment: boolean): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": contentTypeOf(info.mime_type!),
    "content-length": String(info.size_bytes),
    "last-modified": new Date(info.modified_at).toUTCString(),
    // A workspace's HTML is shown as text's bytes, never run as a page of this server.
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
  };
  // filename= for the clients that read no other: printable ASCII alone, as a header carries it.
  if (attachment) headers["content-disposition"] = `attachment; filename="${info.name.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(info.name)}`;
  if (c.req.method === "HEAD") {
    await file.close();
    return new Response(null, { status: 200, headers });
  }
  return new Response(Readable.toWeb(Readable.from(promised(file, info.size_bytes!))) as ReadableStream, { status: 200, headers });
}

/** The file's first `size` bytes, as its Content-Length promised: never more (a run may add to it
 * meanwhile: more would be read as the next answer on the connection), and an error when it has
 * fewer (cut short meanwhile), which ends the connection rather than leave the client waiting. */
async function* promised(file: FileHandle, size: number): AsyncGenerator<Buffer> {
  if (size === 0) return void (await file.close());
  let sent = 0;
  // Closes the file at its end, or when the answer is not read to it (the stream is destroyed).
  for await (const chunk of file.createReadStream({ start: 0, end: size - 1 }) as AsyncIterable<Buffer>) {
    sent += chunk.length;
    yield chunk;
  }
  if (sent < size) throw new Error(`the file was cut short while it was sent (${sent} of ${size} bytes)`);
}
