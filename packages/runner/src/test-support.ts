// Helpers shared by the runner's tests: a backend the test drives, a runner on a free port, waiting
// for conditions.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerEvent, RunnerQuery } from "@harness/protocol";
import { waitFor as sharedWaitFor } from "@harness/test-utils";
import type { Backend, BackendContext, RunOutcome } from "./backend.ts";
import { createRunnerClient, type RunnerClient, type RunnerTransport } from "./client/client.ts";
import { createRunnerServer, type RunnerServerOptions } from "./http/server.ts";

export type TestContext = { after(fn: () => unknown): void };
export type Started = { query: RunnerQuery; ctx: BackendContext };

/** A backend driven by the test: each run calls `script`. */
export function fakeBackend(
  script: (query: RunnerQuery, ctx: BackendContext) => Promise<RunOutcome>,
  extra: Partial<Backend> = {},
): Backend & { runs: Started[] } {
  const runs: Started[] = [];
  return {
    name: "fake",
    ...extra,
    runs,
    run(query, ctx) {
      runs.push({ query, ctx });
      return script(query, ctx);
    },
  };
}

/** Runs until its signal aborts, then reports it; lets a test hold a run open. */
export function waitForAbort(ctx: BackendContext): Promise<RunOutcome> {
  return new Promise((resolve) => {
    if (ctx.signal.aborted) return resolve({ ok: false, message: "cancelled" });
    ctx.signal.addEventListener("abort", () => resolve({ ok: false, message: "cancelled" }), { once: true });
  });
}

export async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function tempDir(t: TestContext, prefix = "harness-runner-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A runner server on a free port, closed after the test; its client speaks through `transport`. */
export async function startRunner(
  t: TestContext,
  { transport, ...options }: Partial<RunnerServerOptions> & { backend?: Backend; transport?: RunnerTransport } = {},
): Promise<{ url: string; client: RunnerClient; server: Server }> {
  // A state directory of the test's own: runs that end unheard are written there.
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "harness-runner-state-"));
  const server = createRunnerServer({ workspace: "/tmp/unused-workspace", stateDir, ...options });
  const url = await listen(server);
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    if (options.stateDir === undefined) rmSync(stateDir, { recursive: true, force: true });
  });
  return { url, client: createRunnerClient(url, { transport }), server };
}

export async function collect(events: AsyncIterable<RunnerEvent>): Promise<RunnerEvent[]> {
  const out: RunnerEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  return sharedWaitFor(condition, what, { timeoutMs, intervalMs: 10 }).then(() => undefined);
}

/** POSTs JSON (or raw text) and returns the status and parsed answer. */
export async function post(url: string, body: unknown): Promise<{ status: number; body: { error?: string; ok?: boolean } & Record<string, unknown> }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

/** A signal that never fires. */
export const never = (): AbortSignal => new AbortController().signal;

export const usage = { inputTokens: 10, outputTokens: 5 };
