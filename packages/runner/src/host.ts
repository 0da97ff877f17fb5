// A runner process that serves several workspaces: each is a whole runner (its own runs, one at a
// time, its checkpoints, its backends' state) under /workspaces/:id, opened with PUT and closed with
// DELETE (see @harness/protocol runner-control.ts). Paths outside /workspaces go to the process's
// own workspace, so a host is also a plain runner.
//
// Why: one process per session costs a Node heap and cold code per session; sessions that share a
// process share warm code, and a model's deltas cost a fraction of the CPU.
import { makeDirsSync } from "@harness/agent/make-dirs";
import { resolve } from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { WORKSPACE_ID_PATTERN, WorkspaceCloseBodySchema, WorkspaceOpenBodySchema } from "@harness/protocol";
import { answerFailures, readJson, refuse, refuseQueryString, sendError, sendJson } from "./http/http.ts";
import { createRunnerHandler, pathOf, type RunnerHandler, type RunnerServerOptions } from "./http/server.ts";
import { createTranscriptMemory } from "./runs/transcripts.ts";

export type RunnerHost = RunnerHandler & {
  /** The ids of the open workspaces. */
  workspaces(): string[];
};

const PREFIX = "/workspaces/";

export function createRunnerHost(hostOptions: RunnerServerOptions): RunnerHost {
  // The workspaces' kept transcripts share one memory budget.
  const opts = { ...hostOptions, transcripts: hostOptions.transcripts ?? createTranscriptMemory() };
  // The process's own /health answers for all its runs: a server lets go of a process of another
  // version only once no session has a run on it, adopted or not yet.
  const own = createRunnerHandler({ ...opts, healthBusy: () => all().some((h) => h.hasRun()) });
  const open = new Map<string, { workspace: string; handler: RunnerHandler }>();
  const listeners: (() => void)[] = [];
  const activity = () => {
    for (const listener of listeners) listener();
  };
  own.onActivity(activity);

  async function put(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const body = await readJson(req, res, WorkspaceOpenBodySchema, 64 * 1024);
    if (!body) return;
    // One spelling per directory: /a/, /a/./b/.. and /a are the same workspace.
    const workspace = resolve(body.workspace);
    const stateDir = body.stateDir === undefined ? undefined : resolve(body.stateDir);
    const existing = open.get(id);
    if (existing) {
      if (existing.workspace !== workspace) {
        return sendError(res, 409, `workspace ${id} is open for ${existing.workspace}, not ${workspace}`);
      }
      return sendJson(res, 200, { id, workspace: existing.workspace });
    }
    try {
      makeDirsSync(workspace);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST" || code === "ENOTDIR") return sendError(res, 400, `workspace: ${workspace} is not a directory`);
      if (code === "ENOENT") return sendError(res, 400, `workspace: ${workspace} cannot be made there`);
      return sendError(res, 500, `cannot create the workspace ${workspace}: ${(err as Error).message}`);
    }
    const handler = createRunnerHandler({ ...opts, workspace, stateDir });
    handler.onActivity(activity);
    open.set(id, { workspace, handler });
    sendJson(res, 200, { id, workspace });
  }

  async function remove(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    // The body (why the conversation ends) may be left out altogether.
    const bodyless = req.headers["content-type"] === undefined && !Number(req.headers["content-length"] ?? 0) && req.headers["transfer-encoding"] === undefined;
    const body = bodyless ? {} : await readJson(req, res, WorkspaceCloseBodySchema, 1024);
    if (!body) return;
    const entry = open.get(id);
    if (!entry) return sendError(res, 404, `no open workspace ${id}`);
    open.delete(id);
    await entry.handler.close(body.reason);
    sendJson(res, 200, { id, closed: true });
  }

  function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | void {
    const slash = path.indexOf("/", PREFIX.length);
    const id = path.slice(PREFIX.length, slash === -1 ? undefined : slash);
    if (!WORKSPACE_ID_PATTERN.test(id)) {
      return refuse(req, res, 400, `not a workspace id: "${id.slice(0, 80)}" (1–64 characters of A-Z a-z 0-9 _ -)`);
    }
    if (slash === -1) {
      if (req.method === "PUT") return put(req, res, id);
      if (req.method === "DELETE") return remove(req, res, id);
      return refuse(req, res, 405, `${req.method} ${path}: a workspace is opened with PUT and closed with DELETE`);
    }
    const entry = open.get(id);
    if (!entry) return refuse(req, res, 404, `no open workspace ${id}: open it with PUT ${PREFIX}${id}`);
    entry.handler.handle(req, res, path.slice(slash));
  }

  function handle(req: IncomingMessage, res: ServerResponse, path = pathOf(req)): void {
    if (!path.startsWith(PREFIX)) return own.handle(req, res, path);
    activity();
    if (refuseQueryString(req, res, path)) return;
    answerFailures(route(req, res, path), res);
  }

  const all = () => [own, ...[...open.values()].map((e) => e.handler)];
  return {
    handle,
    isBusy: () => all().some((h) => h.isBusy()),
    hasRun: () => all().some((h) => h.hasRun()),
    async abortRun() {
      await Promise.all(all().map((h) => h.abortRun()));
    },
    onActivity(listener) {
      listeners.push(listener);
    },
    async close(reason) {
      await Promise.all(all().map((h) => h.close(reason)));
    },
    workspaces: () => [...open.keys()],
  };
}
