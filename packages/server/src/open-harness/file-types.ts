// The MIME type of a workspace file: by its extension for the kinds a workspace holds (code, text,
// images, archives), else by its first bytes (text that is UTF-8, else binary). Not the mime-db
// table: there ".ts" is an MPEG transport stream, which a workspace's .ts files never are.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
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

/** The type of the file at `real` (a regular file): by extension, else sniffed. */
export async function mimeTypeOf(real: string): Promise<string> {
  const known = BY_EXTENSION[extname(real).toLowerCase()];
  if (known) return known;
  // Not waiting on a pipe put there since `real` was looked at.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksLikeText(buffer.subarray(0, bytesRead), bytesRead === SNIFF_BYTES) ? "text/plain" : "application/octet-stream";
  } finally {
    await handle.close();
  }
}

/** No NUL, and UTF-8 (but for a character the sample's end cut short, when it is `partial`). */
function looksLikeText(sample: Buffer, partial: boolean): boolean {
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
