// A fork's files as they were at its fork point: the workspace copied from the source is put back
// from the copied checkpoint of the user message whose run came next, as a rewind to that message
// would put it back. No runner takes part: the fork's own runner has not started yet.
import { createCheckpoints, GIT_NEEDED_MESSAGE } from "@harness/runner/checkpoints";

/** Why the files could not be put back (they then stay the source's as they are now), or
 * undefined when they are as they were just before `userMessageId`'s run. The reason names no
 * server path: the workspace's files by their paths inside it. */
export async function restoreForkFiles(workspace: string, stateDir: string, userMessageId: string): Promise<string | undefined> {
  let reason: string | undefined;
  try {
    reason = await restore(workspace, stateDir, userMessageId);
  } catch (error) {
    reason = `cannot restore them: ${(error as Error).message}`;
  }
  return reason?.replaceAll(stateDir, "<the session's checkpoints>").replaceAll(workspace, "<the workspace>");
}

async function restore(workspace: string, stateDir: string, userMessageId: string): Promise<string | undefined> {
  const checkpoints = createCheckpoints({ workspace, stateDir });
  if (!(await checkpoints.available())) return GIT_NEEDED_MESSAGE;
  const entry = await checkpoints.entry(userMessageId);
  // Pending: nothing has changed the files since that run began.
  if (entry?.pending) return undefined;
  if (!entry?.tree) return `there is no checkpoint of the files before message "${userMessageId}" (any more)`;
  const restored = await checkpoints.restore(entry.tree);
  return restored.ok ? undefined : restored.message;
}
