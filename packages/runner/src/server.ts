// The SandboxRunner's HTTP surface (node:http, kept lean: it sits on the streaming hot path).
//
//   POST /query   RunnerQuery → 200 text/event-stream of RunnerEvent (ids 1..n), 400 bad body,
//                 409 while another run is in flight, 413 body over 8 MiB
//   GET  /health  → RunnerHealth
//
// One run at a time. Closing the /query request aborts the run. The per-run API key lives only in
// memory for the duration of the run: nothing here logs or stores request bodies.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { RunnerQuerySchema, type AgentEvent, type RunnerHealth, type RunnerQuery } from "@harness/protocol";
import { headlessContext, type Backend, type RunOutcome } from "./backend.ts";
import { parseJsonBody, readBody } from "./body.ts";
import { encodeEvent } from "./sse.ts";

export const MAX_QUERY_BYTES = 8 * 1024 * 1024;
export const BUSY_MESSAGE = "runner is busy with another run";

export type RunnerServerOptions = {
  /** Default working directory of runs. */
  workspace: string;
  /** Default: builtinBackend(), loaded on first use (it brings in the agent and the model SDK). */
  backend?: Backend;
};

export type RunnerHandler = {
  handle(req: IncomingMessage, res: ServerResponse): void;
  isBusy(): boolean;
  /** Aborts the run in flight, if any; resolves once it has settled. */
  abortRun(): Promise<void>;
};

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

export function createRunnerServer(opts: RunnerServerOptions): Server {
  const handler = createRunnerHandler(opts);
  // Loaded on use: node:http costs tens of milliseconds to load, and `harness run` imports this
  // package without ever serving.
  const { createServer } = process.getBuiltinModule("node:http");
  return createServer({ noDelay: true }, handler.handle);
}

export function createRunnerHandler(opts: RunnerServerOptions): RunnerHandler {
  const backend = opts.backend ?? lazyBuiltinBackend();
  let current: { controller: AbortController; settled: Promise<void> } | undefined;

  async function query(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, MAX_QUERY_BYTES);
    if (!body.ok) {
      if (body.status) sendJson(res, body.status, { error: body.error });
      return;
    }
    const parsed = parseJsonBody(body.value, RunnerQuerySchema);
    if (!parsed.ok) return sendJson(res, parsed.status, { error: parsed.error });
    if (current) return sendJson(res, 409, { error: BUSY_MESSAGE });

    const controller = new AbortController();
    let settle!: () => void;
    current = { controller, settled: new Promise((resolve) => (settle = resolve)) };
    try {
      await stream(parsed.value, controller, res);
    } finally {
      current = undefined;
      settle();
    }
  }

  async function stream(q: RunnerQuery, controller: AbortController, res: ServerResponse): Promise<void> {
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    res.socket?.setNoDelay(true);

    let open = true;
    let corked = false;
    let finished = false;
    let seq = 0;
    res.on("close", () => {
      open = false;
      controller.abort();
    });
    if (!res.socket || res.socket.destroyed) {
      // The client left between sending its body and now: 'close' may already have fired.
      open = false;
      controller.abort();
    }
    const uncork = () => {
      if (!corked) return;
      corked = false;
      if (open) res.uncork();
    };
    // Events emitted in the same tick leave in one packet: cork on the first, uncork on nextTick.
    const write = (frame: string) => {
      if (!open) return;
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      res.write(frame);
    };

    write(encodeEvent(++seq, { type: "run.started", requestId: crypto.randomUUID() }));
    const emit = (event: AgentEvent) => {
      if (!finished) write(encodeEvent(++seq, event));
    };

    let outcome: RunOutcome;
    try {
      outcome = await backend.run(q, headlessContext({ signal: controller.signal, emit, workspace: opts.workspace }));
    } catch (err) {
      outcome = { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    finished = true;
    write(
      encodeEvent(
        ++seq,
        outcome.ok
          ? { type: "run.completed", result: outcome.result, usage: outcome.usage, transcript: outcome.transcript }
          : { type: "run.error", message: outcome.message, transcript: outcome.transcript },
      ),
    );
    if (!open) return;
    if (corked) {
      corked = false;
      res.uncork();
    }
    res.end();
  }

  function health(res: ServerResponse): void {
    const body: RunnerHealth = { ok: true, busy: current !== undefined, hasAnthropicKey: Boolean(process.env.ANTHROPIC_API_KEY) };
    sendJson(res, 200, body);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (path === "/query" && req.method === "POST") {
      query(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
        else res.destroy();
      });
    } else if (path === "/health" && (req.method === "GET" || req.method === "HEAD")) {
      health(res);
    } else {
      req.resume();
      sendJson(res, 404, { error: `not found: ${req.method} ${path}` });
    }
  }

  return {
    handle,
    isBusy: () => current !== undefined,
    async abortRun() {
      const run = current;
      if (!run) return;
      run.controller.abort();
      await run.settled;
    },
  };
}

export function lazyBuiltinBackend(): Backend {
  let loaded: Promise<Backend> | undefined;
  return {
    name: "builtin",
    async run(query, ctx) {
      loaded ??= import("./backends/builtin.ts").then((m) => m.builtinBackend());
      return (await loaded).run(query, ctx);
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
