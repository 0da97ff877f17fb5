// The Open Harness routes act on sessions through the Harness sessions API itself (sessions/api.ts),
// called in-process with the request's own credentials: the same token check, the same user and id
// rules, the same answers, never a second copy of them.
import type { Context, Hono } from "hono";
import { ApiError, codeOfStatus } from "./errors.ts";

/** The sessions API's answer to `method` `path` for the request's user; its refusals as ApiErrors. */
export async function forward<T>(app: Hono, c: Context, method: string, path: string, body?: Record<string, unknown>): Promise<T> {
  const url = new URL(c.req.url);
  const target = new URL(path, url.origin);
  const token = url.searchParams.get("token");
  if (token !== null) target.searchParams.set("token", token);
  const headers = new Headers();
  for (const name of ["authorization", "host", "origin"]) {
    const value = c.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  if (body !== undefined) headers.set("content-type", "application/json");
  const response = await app.request(target.toString(), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }, c.env);
  const answer = (await response.json()) as T & { error?: string };
  if (response.ok) return answer;
  const code = response.status === 404 ? "session_not_found" : response.status === 409 ? "session_exists" : codeOfStatus(response.status);
  throw new ApiError(response.status as 400, code, answer.error ?? `the sessions API answered ${response.status}`);
}
