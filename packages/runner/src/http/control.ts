// Control of a run by its requestId (see @harness/protocol runner-control.ts), and re-attaching to
// its events.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApproveBodySchema, BackgroundBodySchema, DenyBodySchema, KillShellBodySchema, RunConfigureBodySchema, SteerBodySchema, StopAgentBodySchema, TodosBodySchema } from "@harness/protocol";
import { z } from "zod";
import { parseJsonBody, readBody } from "./body.ts";
import type { RunnerDeps } from "./deps.ts";
import { forgetFinishedRun } from "../runs/finished-runs.ts";
import { readJson, refuse, sendError, sendJson } from "./http.ts";
import { quoteId } from "./ids.ts";
import type { Run } from "../runs/runs.ts";
import { streamLog } from "./sse-response.ts";

const MAX_CONTROL_BYTES = 4 * 1024 * 1024;

export const CONTROL_ACTIONS = ["approve", "deny", "steer", "cancel", "configure", "stop-agent", "background", "kill-shell", "todos"] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

function unknownRun(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  refuse(req, res, 404, `no run "${requestId}" on this runner (a finished run is kept for a while, then forgotten)`);
}

function ended(res: ServerResponse, run: Run): void {
  sendError(res, 409, `run "${run.requestId}" has already finished`);
}

export async function handleControl(req: IncomingMessage, res: ServerResponse, deps: RunnerDeps, requestId: string, action: ControlAction): Promise<void> {
  const run = deps.runs.get(requestId);
  if (!run) return unknownRun(req, res, requestId);
  switch (action) {
    case "approve": {
      const body = await readJson(req, res, ApproveBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (!run.approvals.answer(body.toolUseId, { behavior: "allow" })) return noApproval(res, run, body.toolUseId);
      return sendJson(res, 200, { ok: true });
    }
    case "deny": {
      const body = await readJson(req, res, DenyBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      const decision = body.reason === undefined ? { behavior: "deny" as const } : { behavior: "deny" as const, reason: body.reason };
      if (!run.approvals.answer(body.toolUseId, decision)) return noApproval(res, run, body.toolUseId);
      return sendJson(res, 200, { ok: true });
    }
    case "steer": {
      const body = await readJson(req, res, SteerBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (run.endedAt !== undefined) return ended(res, run);
      run.steering.push(body.message);
      return sendJson(res, 200, { ok: true });
    }
    case "configure": {
      const body = await readJson(req, res, RunConfigureBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (run.endedAt !== undefined) return ended(res, run);
      const before = run.approvals.pending().length;
      run.configure.push(body);
      // The run answers the waiting calls the new mode decides (once their answers have settled);
      // the others still need the user, who just chose a wider mode and would not expect it unless told.
      if (body.permissionMode !== undefined && before > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        const waiting = run.approvals.pending().length;
        if (waiting > 0) {
          run.event({
            type: "notice",
            level: "info",
            message: `The ${waiting === 1 ? "call" : `${waiting} calls`} already waiting for approval ${waiting === 1 ? "needs" : "need"} an answer still: the new permission mode does not decide ${waiting === 1 ? "it" : "them"}.`,
          });
        }
      }
      return sendJson(res, 200, { ok: true });
    }
    case "stop-agent": {
      const body = await readJson(req, res, StopAgentBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (run.endedAt !== undefined) return ended(res, run);
      if (!run.agentStops.push(body.toolUseId)) return sendError(res, 404, `no sub-agent of Task call ${quoteId(body.toolUseId)} is running in run "${run.requestId}" (or its backend stops none alone)`);
      return sendJson(res, 200, { ok: true });
    }
    case "background": {
      const body = await readJson(req, res, BackgroundBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (run.endedAt !== undefined) return ended(res, run);
      if (body.toolUseId !== undefined && run.approvals.pending().includes(body.toolUseId)) {
        return sendError(res, 409, `the Bash call ${quoteId(body.toolUseId)} waits for approval: it goes to the background only once it runs`);
      }
      // Past the limit of running shells, the call goes on in the foreground (its result says why).
      const full = deps.backends.shells()?.full();
      if (full !== undefined) return sendError(res, 409, `the Bash call goes on in the foreground: ${full}`);
      if (!run.backgrounds.push(body.toolUseId)) {
        const which = body.toolUseId === undefined ? "no Bash call" : `no Bash call ${quoteId(body.toolUseId)}`;
        return sendError(res, 404, `${which} is running in run "${run.requestId}" (or its backend moves none to the background)`);
      }
      return sendJson(res, 200, { ok: true });
    }
    case "kill-shell": {
      const body = await readJson(req, res, KillShellBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (run.endedAt !== undefined) return ended(res, run);
      const answer = run.shellKills.push(body.shellId);
      if (!answer || answer.outcome === "unknown") return sendError(res, 404, `no background shell ${quoteId(body.shellId)} in run "${run.requestId}"'s conversation (or its backend keeps none)`);
      if (answer.outcome === "not-running") return sendError(res, 409, answer.message);
      return sendJson(res, 200, { ok: true, message: answer.message });
    }
    case "todos": {
      const body = await readJson(req, res, TodosBodySchema, MAX_CONTROL_BYTES);
      if (!body) return;
      if (run.endedAt !== undefined) return ended(res, run);
      if (!run.todoSets.push(body.todos)) return sendError(res, 501, `run "${run.requestId}" keeps no todo list of the runner's: its backend keeps its own`);
      return sendJson(res, 200, { ok: true });
    }
    case "cancel": {
      if (!(await readCancelBody(req, res))) return;
      run.controller.abort();
      return sendJson(res, 200, { ok: true });
    }
  }
}

/** Cancel's body says nothing: none, or an empty JSON object (what the runner client sends). */
const CancelBody = z.strictObject({});
const MAX_CANCEL_BYTES = 1024;

/** Whether cancel's body is one of those; else the refusal has been sent (or the client left). */
async function readCancelBody(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const length = req.headers["content-length"];
  if (req.headers["transfer-encoding"] === undefined && (length === undefined || Number(length) === 0)) {
    return new Promise((resolve) => {
      req.on("end", () => resolve(true));
      req.on("error", () => resolve(false));
      req.resume();
    });
  }
  const body = await readBody(req, MAX_CANCEL_BYTES);
  const parsed = body.ok ? (body.value === "" ? body : parseJsonBody(body.value, CancelBody)) : body;
  if (!parsed.ok && parsed.status) sendError(res, parsed.status, parsed.error);
  return parsed.ok;
}

function noApproval(res: ServerResponse, run: Run, toolUseId: string): void {
  sendError(res, 404, `toolUseId: no approval is pending for tool call ${quoteId(toolUseId)} in run "${run.requestId}"`);
}

/** GET /runs/:id/events with Last-Event-ID: the events after it, then live until the run ends.
 * Closing this stream never cancels the run. */
export function handleEvents(req: IncomingMessage, res: ServerResponse, deps: RunnerDeps, requestId: string): void {
  const run = deps.runs.get(requestId);
  if (!run) return unknownRun(req, res, requestId);
  const header = req.headers["last-event-id"];
  const text = (Array.isArray(header) ? header[0] : header)?.trim() ?? "";
  const after = text === "" ? 0 : /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(after) || after < 0) return sendError(res, 400, `Last-Event-ID: must be an event id (a whole number ≥ 0), got ${quoteId(text)}`);
  if (after > run.log.lastSeq) {
    return sendError(res, 400, `Last-Event-ID: ${after} is after the last event of run "${run.requestId}" (${run.log.lastSeq})`);
  }
  const replay = run.log.replay(after);
  if (!replay.ok) {
    return sendError(
      res,
      410,
      `the events of run "${run.requestId}" after ${after} are no longer all kept (the oldest kept is ${replay.oldestKept}); the run's full stream cannot be replayed`,
    );
  }
  streamLog(res, run.log, replay.frames);
  // Its end is being delivered from memory: the copy kept for a server that came back too late
  // (runs/finished-runs.ts) is not needed.
  if (run.log.ended) void forgetFinishedRun(deps.stateDir, run.requestId).catch(() => undefined);
}
