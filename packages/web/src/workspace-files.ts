// A session's workspace over the Open Harness API, with the page's own credentials (the token as
// Bearer, the user as x-harness-user): a folder's entries (GET …/files?session_id&path) and a file's
// bytes (GET …/files/<path>/download: the download form, so that a file named "download" is never
// read as its folder's download). Answers are checked by hand, as the client SDK checks its own.
import { leadingText } from "@harness/protocol/client-side";
import type { Credentials } from "./credentials.ts";

const FILES = "/v1/harnesses/harness/files";

export type WorkspaceEntry = { path: string; name: string; type: "file" | "directory"; size?: number; mimeType?: string };

/** The types shown as text (as the server tells text from bytes). */
export function isTextType(mimeType: string | undefined): boolean {
  return mimeType !== undefined && /^(text\/|application\/(json|jsonl|xml|yaml|toml|sql)$|image\/svg\+xml$)/.test(mimeType.split(";")[0].trim());
}

/** What a size reads as: bytes, then KB and MB with one decimal. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export type WorkspaceFiles = {
  /** The entries of folder `path` ("" the workspace), folders first, each group by name. */
  list(sessionId: string, path: string): Promise<{ entries: WorkspaceEntry[]; truncated: boolean }>;
  /** The file's text, when the server says it is text and it is at most `maxBytes` long; past that
   * `tooLarge`, and the rest of the file is not read. */
  read(sessionId: string, path: string, maxBytes: number): Promise<{ text?: string; mimeType: string; tooLarge?: true }>;
};

export function workspaceFiles(credentials: Credentials): WorkspaceFiles {
  async function get(path: string, query: Record<string, string>): Promise<Response> {
    const url = new URL(path, location.origin);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const headers: Record<string, string> = { "x-harness-user": credentials.userId };
    if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
    const response = await fetch(url, { headers });
    if (response.ok) return response;
    // The API says what is wrong as {error: {code, message}}; a proxy in between may answer anything.
    const said = await response.json().then(
      (body: { error?: { message?: unknown } }) => (typeof body?.error?.message === "string" ? body.error.message : undefined),
      () => undefined,
    );
    throw new Error(`the server answered ${response.status}${said ? `: ${said}` : response.statusText ? ` ${response.statusText}` : ""}`);
  }

  return {
    async list(sessionId, path) {
      const answer = (await (await get(FILES, { session_id: sessionId, ...(path && { path }) })).json()) as { files?: unknown; truncated?: unknown };
      if (!Array.isArray(answer?.files)) throw new Error("the server's listing has no files");
      const entries: WorkspaceEntry[] = [];
      for (const file of answer.files as Record<string, unknown>[]) {
        if (typeof file?.path !== "string" || typeof file.name !== "string" || (file.type !== "file" && file.type !== "directory")) throw new Error("the server's listing holds an entry without a path, name or type");
        entries.push({
          path: file.path,
          name: file.name,
          type: file.type,
          ...(typeof file.size_bytes === "number" && { size: file.size_bytes }),
          ...(typeof file.mime_type === "string" && { mimeType: file.mime_type }),
        });
      }
      entries.sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.type === "directory" ? -1 : 1));
      return { entries, truncated: answer.truncated === true };
    },
    async read(sessionId, path, maxBytes) {
      const named = path.split("/").map(encodeURIComponent).join("/");
      const response = await get(`${FILES}/${named}/download`, { session_id: sessionId });
      const mimeType = response.headers.get("content-type") ?? "application/octet-stream";
      if (!isTextType(mimeType)) {
        await response.body?.cancel();
        return { mimeType };
      }
      const text = await readTextCapped(response.body, maxBytes);
      return text === undefined ? { mimeType, tooLarge: true } : { text, mimeType };
    },
  };
}

/** The UTF-8 text of `body` when it ends within `maxBytes`; undefined as soon as a chunk passes
 * them, the rest cancelled (a file that grew since it was listed is not read whole). */
export async function readTextCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string | undefined> {
  const { text, more } = await leadingText(new Response(body), maxBytes);
  return more ? undefined : text;
}
