// The MIME type of a workspace file: by its extension for the kinds a workspace holds (code, text,
// images, archives), else by its first bytes (text that is UTF-8, else binary). Not the mime-db
// table: there ".ts" is an MPEG transport stream, which a workspace's .ts files never are.
import type { FileHandle } from "node:fs/promises";
import { extname } from "node:path";

const BY_EXTENSION: Record<string, string> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".log": "text/plain",
  ".ts": "text/typescript",
  ".tsx": "text/typescript",
  ".mts": "text/typescript",
  ".cts": "text/typescript",
  ".js": "text/javascript",
  ".jsx": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".json": "application/json",
  ".jsonl": "application/jsonl",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".xml": "application/xml",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".py": "text/x-python",
  ".rb": "text/x-ruby",
  ".go": "text/x-go",
  ".rs": "text/x-rust",
  ".java": "text/x-java",
  ".c": "text/x-c",
  ".h": "text/x-c",
  ".cc": "text/x-c++",
  ".cpp": "text/x-c++",
  ".hpp": "text/x-c++",
  ".sh": "text/x-shellscript",
  ".sql": "application/sql",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/vnd.microsoft.icon",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
  ".wasm": "application/wasm",
};

const TEXT_LIKE = /^(text\/|application\/(json|jsonl|xml|yaml|toml|sql)$|image\/svg\+xml$)/;
const SNIFF_BYTES = 4096;

/** The type by the extension of `name` alone; undefined when its bytes must tell. */
export function mimeTypeByName(name: string): string | undefined {
  return BY_EXTENSION[extname(name).toLowerCase()];
}

/** The type of the regular file named `name`: by its extension, else sniffed from its first bytes,
 * read from `file` as it is open (its position left as it was: a read from 0 after is whole), or
 * given (the bytes being written): never its name opened again, which may lead elsewhere by then. */
export async function mimeTypeOf(name: string, file: FileHandle | Uint8Array): Promise<string> {
  const known = mimeTypeByName(name);
  if (known) return known;
  let sample: Uint8Array;
  if (file instanceof Uint8Array) sample = file.subarray(0, SNIFF_BYTES);
  else {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
    sample = buffer.subarray(0, bytesRead);
  }
  return looksLikeText(sample, sample.length === SNIFF_BYTES) ? "text/plain" : "application/octet-stream";
}

/** No NUL, and UTF-8 (but for a character the sample's end cut short, when it is `partial`). */
function looksLikeText(sample: Uint8Array, partial: boolean): boolean {
  if (sample.includes(0)) return false;
  for (let cut = 0; cut < (partial ? 4 : 1); cut++) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(sample.subarray(0, sample.length - cut));
      return true;
    } catch {
      // Try again without the last bytes: a character cut short by the sample's end.
    }
  }
  return false;
}

/** The Content-Type header a file of `mimeType` is answered with. */
export function contentTypeOf(mimeType: string): string {
  return TEXT_LIKE.test(mimeType) ? `${mimeType}; charset=utf-8` : mimeType;
}
