// The files a run created or changed, kept on its assistant message (HarnessMessage.changedFiles):
// each report (files.changed, the run's end) adds the paths not named yet, in order, so that a
// client (the Open Harness API's artifacts) numbers them once and for all. Capped at MAX_CHANGED_FILES.
import { MAX_CHANGED_FILES, type ChangedFiles, type DeltaOperation, type HarnessMessage } from "@harness/protocol";

/** Operations that add `report` to message `index`'s changed files. */
export function changedFilesOps(message: HarnessMessage, index: number, report: ChangedFiles): DeltaOperation[] {
  const path = ["messages", String(index), "changedFiles"];
  const known = message.changedFiles;
  const named = new Set(known?.paths);
  const fresh = [...new Set(report.paths)].filter((p) => !named.has(p));
  const room = MAX_CHANGED_FILES - named.size;
  const added = fresh.slice(0, Math.max(0, room));
  const truncated = report.truncated === true || fresh.length > added.length;
  if (!known) return [{ type: "set", path, value: { paths: added, ...(truncated && { truncated: true }) } }];
  const ops: DeltaOperation[] = added.map((p, k) => ({ type: "set", path: [...path, "paths", String(known.paths.length + k)], value: p }));
  if (truncated && !known.truncated) ops.push({ type: "set", path: [...path, "truncated"], value: true });
  return ops;
}
