// The files a run created or changed, kept on its assistant message (HarnessMessage.changedFiles):
// each report (files.changed, the run's end) adds the paths not named yet, in order, so that a
// client (the Open Harness API's artifacts) numbers them once and for all. Capped at
// MAX_CHANGED_FILES. A report after a call also names, on the call, the files it was first to change.
import { MAX_CHANGED_FILES, type ChangedFiles, type DeltaOperation, type HarnessMessage } from "@harness/protocol";

/** Operations that add `report` to message `index`'s changed files, and those first named by it to
 * the call `toolUseId` (when the message holds it). */
export function changedFilesOps(message: HarnessMessage, index: number, report: ChangedFiles, toolUseId?: string): DeltaOperation[] {
  const path = ["messages", String(index), "changedFiles"];
  const known = message.changedFiles;
  const named = new Set(known?.paths);
  const fresh = [...new Set(report.paths)].filter((p) => !named.has(p));
  const room = MAX_CHANGED_FILES - named.size;
  const added = fresh.slice(0, Math.max(0, room));
  const truncated = report.truncated === true || fresh.length > added.length;
  const ops: DeltaOperation[] = [];
  if (!known) ops.push({ type: "set", path, value: { paths: added, ...(truncated && { truncated: true }) } });
  else {
    ops.push(...added.map((p, k): DeltaOperation => ({ type: "set", path: [...path, "paths", String(known.paths.length + k)], value: p })));
    if (truncated && !known.truncated) ops.push({ type: "set", path: [...path, "truncated"], value: true });
  }
  const j = toolUseId === undefined ? -1 : (message.toolCalls?.findIndex((call) => call.id === toolUseId) ?? -1);
  if (j >= 0 && added.length > 0) {
    const before = message.toolCalls![j].changedFiles ?? [];
    ops.push({ type: "set", path: ["messages", String(index), "toolCalls", String(j), "changedFiles"], value: [...before, ...added] });
  }
  return ops;
}
