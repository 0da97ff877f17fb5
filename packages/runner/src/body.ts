// Reading and validating a JSON request body with a size limit.
import type { IncomingMessage } from "node:http";
import type { z } from "zod";

export type BodyResult<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

/** Reads the whole body as UTF-8 text. Resolves `status: 0` when the client went away mid-body
 * (nobody is left to answer). */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyResult<string>> {
  const tooLarge = { ok: false as const, status: 413, error: `body is larger than ${limitBytes} bytes` };
  const declared = Number(req.headers["content-length"]);
  if (declared > limitBytes) {
    req.resume();
    return Promise.resolve(tooLarge);
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
      resolve({ ok: true, value: chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks, size).toString("utf8") });
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
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`).join("; ");
}

export function parseJsonBody<S extends z.ZodType>(text: string, schema: S): BodyResult<z.infer<S>> {
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
