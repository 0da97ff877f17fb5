// Shared by the Open Harness end-to-end tests: requests under /v1 as a user, SSE read to its end,
// an execution polled until it reaches a state, and the server started again with people's tokens.
import { writeFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { startHarnessServer, type HarnessProcess } from "@harness/test-utils";
import type { Harness } from "./e2e-commands-support.ts";

export type Sse = { id?: string; data: Record<string, unknown> };

/** The SSE events of a response, to its end; `seen`, if given, is told each as it comes. */
export async function readSse(response: Response, seen?: (event: Sse) => void): Promise<Sse[]> {
  const events: Sse[] = [];
  const take = (block: string) => {
    const lines = block.split("\n");
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
    if (!data) return;
    const id = lines.find((l) => l.startsWith("id:"))?.slice(3).trim();
    const event = { id, data: JSON.parse(data) };
    events.push(event);
    seen?.(event);
  };
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body ?? []) {
    const blocks = (rest + decoder.decode(chunk, { stream: true })).split("\n\n");
    rest = blocks.pop()!;
    blocks.forEach(take);
  }
  take(rest + decoder.decode());
  return events;
}

export const V1 = "/v1/harnesses/harness";

export type Api = (path: string, init?: RequestInit) => Promise<Response>;

/** Requests to the server at `url()` (asked each time: a restarted server has a new one) with JSON
 * bodies, speaking for `user`. */
export function apiAs(url: string | (() => string), user = "alice"): Api {
  const base = typeof url === "string" ? () => url : url;
  return (path, init = {}) => fetch(`${base()}${path}`, { ...init, headers: { "content-type": "application/json", "x-harness-user": user, ...init.headers } });
}

/** The execution `id` once `ready` holds for it (asked every 100 ms, for up to 30 s). */
export async function executionWhen(api: Api, id: string, ready: (execution: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const { execution } = await (await api(`${V1}/executions/${id}`)).json();
    if (ready(execution)) return execution;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the execution never ${what}`);
}

/** The first `count` SSE events of a stream that stays open (read as they come, then left). */
export async function takeSse(response: Response, count: number): Promise<Sse[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Sse[] = [];
  let text = "";
  try {
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended after ${events.length} of ${count} events`);
      text += value;
      let end: number;
      while (events.length < count && (end = text.indexOf("\n\n")) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const lines = block.split("\n");
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
        if (!data) continue;
        events.push({ id: lines.find((l) => l.startsWith("id:"))?.slice(3).trim(), data: JSON.parse(data) });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

/** `h`'s server started again with HARNESS_TOKENS_FILE holding the line `ann ANN_TOKEN`; the
 * server, the fake model and the data are done with when the test ends. */
export async function withAnnsToken(t: { after(fn: () => unknown): void }, h: Harness): Promise<HarnessProcess> {
  await h.server.stop();
  const file = join(h.dataDir, "tokens");
  await writeFile(file, `ann ${ANN_TOKEN}\n`);
  const server = await startHarnessServer({ dataDir: h.dataDir, env: { ...h.env, HARNESS_TOKENS_FILE: file } });
  t.after(async () => {
    await server.stop();
    await h.fake.close();
    await rm(h.dataDir, { recursive: true, force: true });
  });
  return server;
}

export const ANN_TOKEN = "ann-token-0123456789abcdef";
