// An execution's artifacts: the files of its session's workspace its run created or changed, whatever
// tool did it (as its file checkpoint saw them: a shell command's output, a sub-agent's writes), and
// those its Write, Edit, MultiEdit and NotebookEdit calls that succeeded named (the only ones known
// where the run took no checkpoint: the claude-code backend without git), read as they are now
// through the workspace's confined reading (openFile): never a path joined by hand, never outside
// the workspace. An artifact's id is the file's place (from 1) among those the run made, in the
// order first seen: it stays the same as the run goes on (see artifact-paths.ts).
import { ApiError } from "./errors.ts";
import type { DetailedToolCall } from "./execution-record.ts";
import type { Execution } from "./executions.ts";
import type { OpenHarness } from "./common.ts";
import { openFile, type FileInfo } from "./workspace-files.ts";
import { workspacePaths, writerPath } from "./artifact-paths.ts";

export type ArtifactSummary = { id: string; name: string; mime_type: string; size_bytes: number };

/** The workspace paths (relative to `workDir`) the calls wrote, each once, in the order first
 * written. A path the tool was given relative is taken from the workspace, where the run's tools
 * start; one that leads out of the workspace is no artifact. */
export function writtenPaths(calls: readonly DetailedToolCall[], workDir: string): string[] {
  const given = calls.flatMap((call) => (call.status === "completed" ? (writerPath(call.name, call.input as Record<string, unknown>) ?? []) : []));
  return workspacePaths(given, workDir);
}

/** The file `relative` of the workspace as it is now; undefined when it is no longer a file there
 * (deleted, made a directory, a link leading out). */
async function fileNow(root: string, relative: string): Promise<FileInfo | undefined> {
  try {
    const { handle, info } = await openFile(root, relative);
    await handle.close();
    return info;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/** Where the execution's files are, and which it made (of the first `seen` names it gave); none
 * once its session is gone (a session made later with the same id is another's work). */
async function writtenBy(oh: OpenHarness, execution: Execution, seen?: number): Promise<{ root: string; paths: string[] }> {
  const root = oh.workDirOf(execution.userId, execution.sessionId);
  if (!(await oh.sessionExists(execution.userId, execution.sessionId))) return { root, paths: [] };
  return { root, paths: workspacePaths(execution.watch.touched.slice(0, seen), root) };
}

/** The execution's artifacts from the one of id `from + 1` on: the files it made (of the first
 * `seen` names it gave: the rest are announced later) that are still in the workspace; `count`,
 * how many files those names lead to (the id the next one will have, less one). */
export async function artifactsFrom(oh: OpenHarness, execution: Execution, from = 0, seen?: number): Promise<{ artifacts: ArtifactSummary[]; count: number }> {
  const { root, paths } = await writtenBy(oh, execution, seen);
  const artifacts: ArtifactSummary[] = [];
  for (let index = from; index < paths.length; index++) {
    const info = await fileNow(root, paths[index]);
    if (info) artifacts.push({ id: String(index + 1), name: paths[index], mime_type: info.mime_type!, size_bytes: info.size_bytes! });
  }
  return { artifacts, count: paths.length };
}

/** The execution's artifacts: the files it made that are still in the workspace. */
export async function artifactsOf(oh: OpenHarness, execution: Execution): Promise<ArtifactSummary[]> {
  return (await artifactsFrom(oh, execution)).artifacts;
}

const ArtifactId = /^[1-9][0-9]{0,8}$/;

/** The artifact `id` of the execution, opened for reading; 404 (artifact_not_found) for one it has not. */
export async function openArtifact(oh: OpenHarness, execution: Execution, id: string) {
  if (!ArtifactId.test(id)) throw new ApiError(400, "invalid_request", `artifactId: must be an artifact's id as the execution's artifacts list gives it (a number from 1), not "${id}"`, "execution.downloadArtifact");
  const { root, paths } = await writtenBy(oh, execution);
  const path = paths[Number(id) - 1];
  const missing = (why: string) => new ApiError(404, "artifact_not_found", `execution "${execution.id}" has no artifact "${id}": ${why}`, "execution.downloadArtifact");
  if (path === undefined) throw missing(`its run made ${paths.length === 1 ? "1 file" : `${paths.length} files`}`);
  try {
    return await openFile(root, path);
  } catch (error) {
    if (error instanceof ApiError) throw missing(`"${path}" is no longer a file in the session's workspace`);
    throw error;
  }
}
