// POST /mcp/probe: the session's MCP servers started as a run starts them, asked what they offer and
// pinged, then stopped (see @harness/protocol runner-mcp.ts). The probe holds the runner as a run
// does: while it goes, a query (or a tool call) is refused as busy; closing the request stops it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_MCP_PROBE_MS, RunnerMcpProbeSchema } from "@harness/protocol";
import type { RunnerDeps } from "./deps.ts";
import { readJson, sendError, sendJson } from "./http.ts";
import { cwdProblem } from "./query-cwd.ts";

const MAX_PROBE_BODY_BYTES = 1024 * 1024;

const notHere = (backend: string) => `the ${backend} backend starts no MCP server itself`;

export async function handleMcpProbe(req: IncomingMessage, res: ServerResponse, deps: RunnerDeps): Promise<void> {
  const probe = await readJson(req, res, RunnerMcpProbeSchema, MAX_PROBE_BODY_BYTES);
  if (!probe) return;
  const selected = deps.backends.select(probe.backend);
  if (!selected.ok) return sendError(res, 400, selected.error);
  const probeMcp = selected.backend.probeMcp?.bind(selected.backend);
  if (!probeMcp) return sendError(res, 501, notHere(selected.backend.name));
  const badCwd = probe.cwd === undefined ? undefined : cwdProblem(probe.cwd, deps.workspace);
  if (badCwd) return sendError(res, 400, badCwd);
  const busy = deps.busyWith();
  if (busy !== undefined) return sendError(res, 409, busy);

  const run = deps.runs.create();
  const limitMs = probe.timeoutMs ?? DEFAULT_MCP_PROBE_MS;
  const timer = setTimeout(() => run.controller.abort(new Error(`the probe took longer than ${limitMs} ms`)), limitMs);
  const gone = () => run.controller.abort(new Error("the client left"));
  res.once("close", gone);
  try {
    const outcome = await probeMcp(probe, { signal: run.controller.signal, workspace: deps.workspace });
    if (!outcome) return sendError(res, 501, notHere(selected.backend.name));
    if (!outcome.ok) return sendError(res, 422, outcome.message);
    sendJson(res, 200, { servers: outcome.servers });
  } catch (error) {
    if (res.destroyed) return;
    if (run.controller.signal.aborted) return sendError(res, 504, `the MCP servers did not all answer in time: ${(run.controller.signal.reason as Error).message}`);
    sendError(res, 500, `the probe failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
    res.off("close", gone);
    deps.runs.finish(run);
    deps.activity();
  }
}
