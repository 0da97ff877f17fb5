// POST /rewind: puts the workspace back as it was before the run that answered a user message.
// A backend with checkpoints of its own (claude-code) rewinds first — it also cuts its own copy of
// the conversation — and the runner's snapshot then restores whatever that backend does not track
// (changes made through shell commands, for one). The answer lists every file either touched.
import type { FileChange, RewindResult } from "@harness/protocol";
import type { BackendRegistry } from "../backends/registry.ts";
import { GIT_NEEDED_MESSAGE, type Checkpoints } from "../checkpoints/checkpoints.ts";

export type RewindAnswer = { ok: true; result: RewindResult } | { ok: false; status: number; error: string };

export type RewindDeps = {
  backends: BackendRegistry;
  checkpoints: Checkpoints;
  workspace: string;
  stateDir: string;
};

export async function rewindWorkspace(request: { userMessageId: string; dryRun: boolean }, deps: RewindDeps): Promise<RewindAnswer> {
  const { userMessageId, dryRun } = request;
  const entry = await deps.checkpoints.entry(userMessageId);
  const backend = deps.backends.get(entry?.backend ?? deps.backends.defaultName);
  const tree = entry?.tree;
  const gitReady = await deps.checkpoints.available();

  // The runner's view first: a real rewind reports what differed before anything was restored.
  let planned: FileChange[] | undefined;
  // Pending: no run has changed anything since this message's began, so there is nothing to restore.
  if (entry?.pending && gitReady) planned = [];
  else if (tree && gitReady) {
    const plan = await deps.checkpoints.plan(tree);
    if (!plan.ok) return { ok: false, status: plan.blocked ? 422 : 500, error: plan.blocked ? plan.message : `cannot compare the workspace with its checkpoint: ${plan.message}` };
    planned = plan.value;
  }

  let own: RewindResult | undefined;
  if (backend?.rewind) {
    try {
      own = await backend.rewind({ userMessageId, dryRun, workspace: deps.workspace, stateDir: deps.stateDir });
    } catch (error) {
      return { ok: false, status: 500, error: `the ${backend.name} backend could not rewind: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  if (planned && tree && !dryRun) {
    const restored = await deps.checkpoints.restore(tree);
    if (!restored.ok) return { ok: false, status: 500, error: `cannot restore the workspace: ${restored.message}` };
  }

  if (!planned && !own) {
    if (!gitReady) return { ok: false, status: 501, error: `cannot rewind: ${GIT_NEEDED_MESSAGE}` };
    return { ok: false, status: 404, error: `no checkpoint for user message "${userMessageId}"` };
  }
  return { ok: true, result: { dryRun, files: merge(planned ?? [], own?.files ?? []) } };
}

/** The runner's entries, then the backend's for paths the runner does not list. */
function merge(runner: FileChange[], backend: FileChange[]): FileChange[] {
  const seen = new Set(runner.map((f) => f.path));
  return [...runner, ...backend.filter((f) => !seen.has(f.path))];
}
