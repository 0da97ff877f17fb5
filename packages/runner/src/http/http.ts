// Small helpers of the runner's HTTP surface: JSON answers and validated JSON bodies.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { parseJsonBody, readBody, type BodyResult } from "./body.ts";
import { quoteId } from "./ids.ts";

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Answers with an error without reading the request's body (it is drained, so that the
 * connection can serve the next request). */
export function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string): void {
  req.resume();
  sendError(res, status, error);
}

/** A handler that failed answers 500, or has its connection cut once its answer has started. */
export function answerFailures(done: Promise<void> | void, res: ServerResponse): void {
  done?.catch((err: unknown) => {
    if (!res.headersSent) sendError(res, 500, err instanceof Error ? err.message : String(err));
    else res.destroy();
  });
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

/** Refuses a request whose URL carries query parameters: no route of the runner takes any, and one
 * ignored would do what its caller did not ask (GET …/events?since=3 replaying the run from its
 * start). True when refused. */
export function refuseQueryString(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const url = req.url ?? "";
  const at = url.indexOf("?");
  if (at === -1) return false;
  const hint = path.endsWith("/events") ? ": say where to resume with the Last-Event-ID header" : "";
  refuse(req, res, 400, `the runner takes no query parameters, got ${quoteId(url.slice(at + 1))}${hint}`);
  return true;
}
