// Where a session's files live under the data directory: its workspace (the agent's files) and its
// runner state (checkpoints, a backend's transcripts), in two trees that never meet.
//
// Earlier versions kept the runner state beside the workspace, as `<workspace>.harness-state`: the
// workspace of the session whose id is `<id>.harness-state`. Deleting session "p" deleted the files
// of session "p.harness-state", and a run of "p" wrote its checkpoints into them. Such a directory
// is moved to the state tree the first time its session's workspace is opened, unless a session of
// that name exists (then it is that session's workspace, and never touched).
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ServerLog } from "../log/writer.ts";

export const LEGACY_STATE_SUFFIX = ".harness-state";
/** What only a runner's state directory holds (the checkpoint repository, its index, old or new). */
const STATE_MARKERS = ["checkpoints.git", "checkpoints.jsonl", "checkpoints.json"];

export type SessionDirs = {
  workspaceOf(userId: string, sessionId: string): string;
  stateOf(userId: string, sessionId: string): string;
  /** The legacy state directory of a session, when there is one that is not another session's. */
  legacyStateOf(userId: string, sessionId: string): string | undefined;
  /** Moves a legacy state directory to the state tree (before the workspace is opened on a runner);
   * a failure is logged and leaves it where it was. */
  adoptLegacyState(userId: string, sessionId: string): void;
};

/** Where the sessions of a server on `dataDir` have their own workspaces (when it has no project). */
export function workspacesDir(dataDir: string): string {
  return join(dataDir, "workspaces");
}

export function sessionDirs(options: {
  dataDir: string;
  /** Whether a session of this name exists (a legacy-looking directory may be its workspace). */
  sessionExists(userId: string, sessionId: string): boolean;
  log: ServerLog;
}): SessionDirs {
  const workspaceOf = (userId: string, sessionId: string) => join(workspacesDir(options.dataDir), userId, sessionId);
  const stateOf = (userId: string, sessionId: string) => join(options.dataDir, "state", userId, sessionId);

  function legacyStateOf(userId: string, sessionId: string): string | undefined {
    const path = `${workspaceOf(userId, sessionId)}${LEGACY_STATE_SUFFIX}`;
    if (!STATE_MARKERS.some((name) => existsSync(join(path, name)))) return undefined;
    if (options.sessionExists(userId, `${sessionId}${LEGACY_STATE_SUFFIX}`)) return undefined;
    return path;
  }

  return {
    workspaceOf,
    stateOf,
    legacyStateOf,
    adoptLegacyState(userId, sessionId) {
      const legacy = legacyStateOf(userId, sessionId);
      const target = stateOf(userId, sessionId);
      if (!legacy || existsSync(target)) return;
      try {
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
        renameSync(legacy, target);
        options.log(`moved the runner state of ${userId}/${sessionId} from ${legacy} to ${target}`, { user: userId, session: sessionId });
      } catch (error) {
        options.log(`cannot move the runner state of ${userId}/${sessionId} from ${legacy}: ${(error as Error).message}`, { level: "error", user: userId, session: sessionId });
      }
    },
  };
}
