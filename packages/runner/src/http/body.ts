// Reading and validating a JSON request body with a size limit.
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { quoteId } from "./ids.ts";

export type BodyResult<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

/** Why a body whose Content-Type header is `header` is not taken as JSON, if it is not. A web page can
 * send any other type (a form, or fetch in no-cors mode) without asking the server first, so a page
 * open beside a runner without a token could otherwise start runs on it. */
export function contentTypeProblem(header: string | undefined): string | undefined {
  const type = header?.split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type?.endsWith("+json")) return undefined;
  return `the body ${type ? `is ${type}` : "has no Content-Type"}: send JSON, with Content-Type: application/json`;
}

/** Reads the whole body of a JSON request (by its Content-Type) as UTF-8 text. Resolves `status: 0`
 * when the client went away mid-body (nobody is left to answer). */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyResult<string>> {
  const tooLarge = { ok: false as const, status: 413, error: `body is larger than ${limitBytes} bytes` };
  const declared = Number(req.headers["content-length"]);
  const badType = contentTypeProblem(req.headers["content-type"]);
  const refused = badType ? { ok: false as const, status: 415, error: badType } : declared > limitBytes ? tooLarge : undefined;
  if (refused) {
    req.resume();
    return Promise.resolve(refused);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.resume();
        resolve(tooLarge);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      // Not decoded leniently: a prompt would reach the model other than it was sent.
      if (!isUtf8(bytes)) resolve({ ok: false, status: 400, error: "body is not valid UTF-8" });
      else resolve({ ok: true, value: bytes.toString("utf8") });
    };
    const onGone = () => {
      cleanup();
      resolve({ ok: false, status: 0, error: "client closed the request" });
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

/** Describes zod issues as "<field>: <problem>", joined by "; ". */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.code === "unrecognized_keys" ? unknownFields(issue.keys) : issue.message}`).join("; ");
}

/** Fields named in part, the first few only: a body can hold many, each a megabyte long. */
function unknownFields(keys: string[]): string {
  const shown = keys.slice(0, 5).map(quoteId).join(", ");
  return `unknown field${keys.length === 1 ? "" : "s"} ${shown}${keys.length > 5 ? ` and ${keys.length - 5} more` : ""}`;
}

/** Deepest nesting of arrays and objects a body may have: far past any transcript, and short of
 * what would overflow the stack of the JSON encoder that sends it on (a run would then end with
 * no last event). */
export const MAX_JSON_DEPTH = 1_000;

/** Whether the JSON `text` nests arrays and objects deeper than `limit` (strings skipped). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: on to its closing quote, one not escaped (an even run of backslashes before it).
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

export function parseJsonBody<S extends z.ZodType>(text: string, schema: S): BodyResult<z.infer<S>> {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { ok: false, status: 400, error: `body nests arrays and objects more than ${MAX_JSON_DEPTH} deep` };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, status: 400, error: `body is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, status: 400, error: describeIssues(parsed.error) };
  return { ok: true, value: parsed.data };
}
