// The SandboxRunner's HTTP surface (node:http, kept lean: it sits on the streaming hot path).
//
//   POST /query                 RunnerQuery → 200 text/event-stream of RunnerEvent (ids 1..n), 400 bad
//                               body or unknown backend, 409 while another run is in flight or when
//                               the query's requestId names a run already known, 412 when its
//                               historyId names a transcript this runner does not keep
//                               (runs/transcripts.ts), 413 over 8 MiB
//   Every JSON body must say so (Content-Type: application/json, else 415) and be UTF-8 (else 400);
//   a field a body's schema does not name is refused (400). No route takes query parameters (400).
//   x-harness-keep-running on POST /query is 1 or 0 (else 400).
//   GET  /health                → RunnerHealth (its version: version.ts)
//   GET  /runs/:id/events       Last-Event-ID → the run's events after it, then live (404 unknown run,
//                               410 when some of them are no longer kept)
//   POST /runs/:id/approve|deny|steer|cancel|configure|stop-agent|background|kill-shell|todos   (see control.ts; cancel's body is none or {})
//   Ids longer than any the runner keeps (a run id over 128 characters…) are refused with 400.
//   POST /tools/invoke          RunnerToolCall → SSE as /query's, of one tool call made directly (see
//                               @harness/protocol runner-tools.ts: 404 unknown tool, 400 bad input)
//   POST /mcp/probe             RunnerMcpProbe → RunnerMcpProbeResult: the MCP servers a run would
//                               start, started, asked what they offer, pinged and stopped (see
//                               @harness/protocol runner-mcp.ts)
//   POST /rewind                {userMessageId, dryRun?} → RewindResult (404 no checkpoint, 409 busy,
//                               422 ignored files in the way, 501 without git)
//   GET  /shells                x-harness-shells-after → RunnerShells: the background shells, at once
//                               or once they differ from that version (a long poll; see shells.ts)
//   POST /shells/kill           {shellId} → {ok, message} (404 no such shell, 409 not running)
//
// One run at a time per workspace (a runner host serves several: see host.ts). The per-run API key
// lives only in memory for the duration of the run: nothing here logs or stores request bodies.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { RewindBodySchema, type RunnerHealth, type SessionEndReason } from "@harness/protocol";
import type { Backend } from "../backend.ts";
import { createBackendRegistry, defaultBackendName, standardBackends, type BackendRegistry } from "../backends/registry.ts";
import { createCheckpoints } from "../checkpoints/checkpoints.ts";
import { createGit } from "../checkpoints/git.ts";
import { answerClientErrors } from "./client-error.ts";
import { CONTROL_ACTIONS, handleControl, handleEvents, type ControlAction } from "./control.ts";
import { BUSY_MESSAGE, REWINDING_MESSAGE, type RunnerDeps } from "./deps.ts";
import type { EventLogLimits } from "../runs/event-log.ts";
import { answerFailures, readJson, refuse, refuseQueryString, sendError, sendJson } from "./http.ts";
import { handleQuery, MAX_QUERY_BYTES } from "./query.ts";
import { createRunnerHost } from "../host.ts";
import { idLengthProblem, MAX_RUN_ID_CHARS, quoteId, shorten } from "./ids.ts";
import { rewindWorkspace } from "./rewind.ts";
import { handleToolCall } from "./tool-call.ts";
import { handleMcpProbe } from "./mcp-probe.ts";
import { shellRoutes } from "./shells.ts";
import { createRunRegistry, type RunRetention } from "../runs/runs.ts";
import { createTranscriptMemory, type TranscriptMemory } from "../runs/transcripts.ts";
import { RunnerStopping } from "../runs/abort-reason.ts";
import { runnerVersion } from "../version.ts";

export { BUSY_MESSAGE } from "./deps.ts";
export { MAX_QUERY_BYTES } from "./query.ts";

export type RunnerServerOptions = {
  /** Default working directory of runs. */
  workspace: string;
  /** The runner-side state of this workspace (checkpoints, a backend's transcripts); default
   * `<workspace>.harness-state`. */
  stateDir?: string;
  /** The only backend: every query runs on it, whatever it names (tests). */
  backend?: Backend;
  /** The backends a query can name. Default: builtin and claude-code, each loaded on first use. */
  backends?: Backend[];
  /** The backend of a query that names none. Default: `backend`'s name, else env HARNESS_BACKEND,
   * else "builtin". */
  defaultBackend?: string;
  /** How long and how many finished runs stay available for re-attaching. */
  retention?: RunRetention;
  /** How many events of a run are kept for re-attaching. */
  eventLimits?: EventLogLimits;
  /** The git executable for file checkpoints (default "git" on PATH). */
  git?: string;
  /** Where the transcripts runs leave are kept (a runner host shares one among its workspaces);
   * default: a memory of this handler's own. */
  transcripts?: TranscriptMemory;
  /** What /health says of `busy` in place of this handler's own run (a runner host's own workspace
   * answers for the whole process: any run in any of its workspaces). */
  healthBusy?: () => boolean;
  /** The longest a GET /shells waits for a change (default SHELLS_WAIT_MS). */
  shellsWaitMs?: number;
};

export type RunnerHandler = {
  /** Answers a request; `path` stands in for the request's own path when given (a runner host
   * serves this handler under a prefix). */
  handle(req: IncomingMessage, res: ServerResponse, path?: string): void;
  /** Whether the runner has work that keeps it from exiting when idle: a run in flight, unless all
   * it does is wait for an approval while no stream is open on it (its server gone: nobody can
   * answer, and waiting would keep the process for ever); or a GET /shells waiting for a change
   * (its server is there). */
  isBusy(): boolean;
  /** Whether a run (or a rewind) is in flight, whoever follows it. */
  hasRun(): boolean;
  /** Aborts the run in flight, if any; resolves once it has settled. */
  abortRun(): Promise<void>;
  /** Called on every request and whenever a run ends. */
  onActivity(listener: () => void): void;
  /** Aborts the run in flight and releases what the backends hold, ending their conversations for
   * `reason` (default "other"). */
  close(reason?: SessionEndReason): Promise<void>;
};

/** The request's path, without its query string. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

export function createRunnerServer(opts: RunnerServerOptions): Server {
  const handler = createRunnerHost(opts);
  // Loaded on use: node:http costs tens of milliseconds to load, and `harness run` imports this
  // package without ever serving.
  const { createServer } = process.getBuiltinModule("node:http");
  const server = createServer({ noDelay: true }, handler.handle);
  answerClientErrors(server);
  server.on("close", () => void handler.close());
  return server;
}

function backendRegistry(opts: RunnerServerOptions): BackendRegistry {
  if (opts.backend) return createBackendRegistry([opts.backend], opts.defaultBackend ?? opts.backend.name);
  let name = opts.defaultBackend;
  if (name === undefined) {
    const fromEnv = defaultBackendName();
    if (!fromEnv.ok) throw new Error(fromEnv.error);
    name = fromEnv.name;
  }
  return createBackendRegistry(opts.backends ?? standardBackends(), name);
}

export function createRunnerHandler(opts: RunnerServerOptions): RunnerHandler {
  const stateDir = opts.stateDir ?? `${opts.workspace.replace(/\/+$/, "")}.harness-state`;
  const runs = createRunRegistry({ retention: opts.retention, limits: opts.eventLimits });
  const activityListeners: (() => void)[] = [];
  let rewinding = false;
  const deps: RunnerDeps = {
    workspace: opts.workspace,
    stateDir,
    runs,
    backends: backendRegistry(opts),
    checkpoints: createCheckpoints({ workspace: opts.workspace, stateDir, git: createGit(opts.git) }),
    transcripts: (opts.transcripts ?? createTranscriptMemory()).slot(),
    busy: () => runs.current() !== undefined || rewinding,
    busyWith: () => (runs.current() !== undefined ? BUSY_MESSAGE : rewinding ? REWINDING_MESSAGE : undefined),
    activity: () => {
      for (const listener of activityListeners) listener();
    },
  };

  const shells = shellRoutes(deps, opts.shellsWaitMs);

  async function rewind(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res, RewindBodySchema, 64 * 1024);
    if (!body) return;
    if (runs.current() !== undefined) return sendError(res, 409, `cannot rewind while a run is in flight: ${BUSY_MESSAGE}`);
    if (rewinding) return sendError(res, 409, "cannot rewind while another rewind of this workspace is in progress");
    rewinding = true;
    try {
      const answer = await rewindWorkspace({ userMessageId: body.userMessageId, dryRun: body.dryRun === true }, deps);
      if (answer.ok) sendJson(res, 200, answer.result);
      else sendError(res, answer.status, answer.error);
    } finally {
      rewinding = false;
      deps.activity();
    }
  }

  function health(res: ServerResponse): void {
    const body: RunnerHealth = { ok: true, busy: (opts.healthBusy ?? deps.busy)(), hasAnthropicKey: Boolean(process.env.ANTHROPIC_API_KEY), version: runnerVersion() };
    sendJson(res, 200, body);
  }

  function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | void {
    const method = req.method;
    if (path === "/query" && method === "POST") return handleQuery(req, res, deps);
    if (path === "/health" && (method === "GET" || method === "HEAD")) return health(res);
    if (path === "/rewind" && method === "POST") return rewind(req, res);
    if (path === "/tools/invoke" && method === "POST") return handleToolCall(req, res, deps);
    if (path === "/mcp/probe" && method === "POST") return handleMcpProbe(req, res, deps);
    if (path === "/shells" && method === "GET") return shells.list(req, res);
    if (path === "/shells/kill" && method === "POST") return shells.kill(req, res);
    const parts = path.split("/");
    if (parts.length === 4 && parts[1] === "runs" && parts[2] !== "") {
      let requestId: string;
      try {
        requestId = decodeURIComponent(parts[2]);
      } catch {
        return refuse(req, res, 400, `not a run id: ${quoteId(parts[2])}`);
      }
      const tooLong = idLengthProblem("run id", requestId, MAX_RUN_ID_CHARS);
      if (tooLong) return refuse(req, res, 400, tooLong);
      const action = parts[3];
      if (action === "events" && method === "GET") return handleEvents(req, res, deps, requestId);
      if (method === "POST" && (CONTROL_ACTIONS as readonly string[]).includes(action)) {
        return handleControl(req, res, deps, requestId, action as ControlAction);
      }
      if (action === "events") return notAllowed(req, res, path, "GET");
      if ((CONTROL_ACTIONS as readonly string[]).includes(action)) return notAllowed(req, res, path, "POST");
    }
    if (path === "/query" || path === "/rewind" || path === "/tools/invoke" || path === "/mcp/probe") return notAllowed(req, res, path, "POST");
    if (path === "/health") return notAllowed(req, res, path, "GET, HEAD");
    if (path === "/shells") return notAllowed(req, res, path, "GET");
    if (path === "/shells/kill") return notAllowed(req, res, path, "POST");
    refuse(req, res, 404, `not found: ${method} ${shorten(path)}`);
  }

  function notAllowed(req: IncomingMessage, res: ServerResponse, path: string, allow: string): void {
    res.setHeader("Allow", allow);
    refuse(req, res, 405, `${req.method} is not allowed on ${shorten(path)}: use ${allow}`);
  }

  function handle(req: IncomingMessage, res: ServerResponse, path = pathOf(req)): void {
    deps.activity();
    if (refuseQueryString(req, res, path)) return;
    answerFailures(route(req, res, path), res);
  }

  let closing: Promise<void> | undefined;
  async function abortRun(reason?: Error): Promise<void> {
    const run = runs.current();
    if (!run) return;
    run.controller.abort(reason);
    await run.settled;
  }

  return {
    handle,
    isBusy: () => {
      // A server watching the shells is there: the process is not one whose server is gone.
      if (shells.waiting() > 0) return true;
      const run = runs.current();
      return deps.busy() && !(run && run.approvals.pending().length > 0 && !run.log.followed);
    },
    hasRun: () => deps.busy(),
    abortRun,
    onActivity(listener) {
      activityListeners.push(listener);
    },
    close(reason) {
      closing ??= (async () => {
        await abortRun(new RunnerStopping());
        deps.transcripts.clear();
        await deps.backends.dispose(reason);
      })();
      return closing;
    },
  };
}
