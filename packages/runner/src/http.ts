// Small helpers of the runner's HTTP surface: JSON answers and validated JSON bodies.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { parseJsonBody, readBody, type BodyResult } from "./body.ts";

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, error: string): void {
  sendJson(res, status, { error });
}

/** Reads and validates a JSON body. On failure the answer has been sent already (or the client left)
 * and undefined comes back. */
export async function readJson<S extends z.ZodType>(req: IncomingMessage, res: ServerResponse, schema: S, limitBytes: number): Promise<z.infer<S> | undefined> {
  const body = await readBody(req, limitBytes);
  const parsed: BodyResult<z.infer<S>> = body.ok ? parseJsonBody(body.value, schema) : body;
  if (parsed.ok) return parsed.value;
  if (parsed.status) sendError(res, parsed.status, parsed.error);
  return undefined;
}
