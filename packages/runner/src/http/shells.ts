// The conversation's background shells, reached run or no run (see @harness/protocol
// runner-control.ts): a session that has no run under way learns of a shell that ended by asking
// GET /shells with the version it holds (a long poll), and stops one with POST /shells/kill.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { KillShellBodySchema, SHELLS_AFTER_HEADER, SHELLS_VERSION_PATTERN, SHELLS_WAIT_MS, type BackgroundShellInfo, type RunnerShells } from "@harness/protocol";
import type { RunnerDeps } from "./deps.ts";
import { readJson, refuse, sendError, sendJson } from "./http.ts";
import { quoteId } from "./ids.ts";

const MAX_KILL_BYTES = 4 * 1024;

export type ShellRoutes = {
  /** GET /shells. */
  list(req: IncomingMessage, res: ServerResponse): void;
  /** POST /shells/kill. */
  kill(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** How many GET /shells wait for a change now: a server is there, watching (not idle). */
  waiting(): number;
};

/** The version of `shells`: the same list, the same version, whichever runner answers. */
export function shellsVersion(shells: readonly BackgroundShellInfo[]): string {
  return createHash("sha256").update(JSON.stringify(shells)).digest("hex").slice(0, 16);
}

/** `waitMs`: the longest a GET /shells waits for a change (tests shorten it). */
export function shellRoutes(deps: RunnerDeps, waitMs = SHELLS_WAIT_MS): ShellRoutes {
  let waiting = 0;
  const current = (): RunnerShells => {
    const shells = deps.backends.shells()?.list() ?? [];
    return { version: shellsVersion(shells), shells };
  };

  function list(req: IncomingMessage, res: ServerResponse): void {
    const header = req.headers[SHELLS_AFTER_HEADER];
    const after = Array.isArray(header) ? header.join(", ") : header?.trim();
    if (after !== undefined && !SHELLS_VERSION_PATTERN.test(after)) {
      return refuse(req, res, 400, `${SHELLS_AFTER_HEADER}: must be a version a GET /shells answered (16 hex digits), got ${quoteId(after)}`);
    }
    const now = current();
    if (after === undefined || now.version !== after) return sendJson(res, 200, now);
    // The list is the asker's: answer once it changes, or at the end of the wait with the same one.
    waiting++;
    let done = false;
    const finish = (answer?: RunnerShells) => {
      if (done) return;
      done = true;
      waiting--;
      clearTimeout(timer);
      unwatch?.();
      deps.activity();
      if (answer && !res.writableEnded && !res.destroyed) sendJson(res, 200, answer);
    };
    const unwatch = deps.backends.shells()?.watch(() => {
      const next = current();
      if (next.version !== after) finish(next);
    });
    const timer = setTimeout(() => finish(current()), waitMs);
    res.on("close", () => finish());
  }

  async function kill(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res, KillShellBodySchema, MAX_KILL_BYTES);
    if (!body) return;
    const answer = deps.backends.shells()?.kill(body.shellId);
    if (!answer || answer.outcome === "unknown") return sendError(res, 404, `shellId: no background shell ${quoteId(body.shellId)} in this conversation`);
    if (answer.outcome === "not-running") return sendError(res, 409, answer.message);
    sendJson(res, 200, { ok: true, message: answer.message });
  }

  return { list, kill, waiting: () => waiting };
}
