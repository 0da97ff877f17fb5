// Which workspace files an execution made, as names given in order: the files its Write, Edit,
// MultiEdit and NotebookEdit calls that succeeded named (as the call gave them), and those its run's
// file checkpoint saw created or changed (relative to the workspace, whatever tool did it). Read as
// workspace paths, each once, in the order first given: a file's place in that list is its
// artifact's id, which stays the same as the run goes on (the list only grows).
import { isAbsolute, relative as pathFrom } from "node:path";
import { isWithin, realPathOf } from "@harness/agent/real-paths";
import { WorkspacePath } from "./workspace-paths.ts";

/** The tools that write a file, and the field of their input that names it. */
const WRITERS: Record<string, string> = { Write: "file_path", Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" };

/** The file a call of tool `name` with `input` wrote, as the call named it; undefined for a call of
 * another tool, or one that names no file. Only for a call that succeeded. */
export function writerPath(name: string, input: Record<string, unknown> | undefined): string | undefined {
  const field = WRITERS[name];
  const given = field === undefined ? undefined : input?.[field];
  return typeof given === "string" && given !== "" ? given : undefined;
}

/** `given` as workspace paths (relative to `workDir`), each once, in the order first given. A path
 * given relative is taken from the workspace, where the run's tools start; one that leads out of the
 * workspace (or is the workspace itself) is left out. */
export function workspacePaths(given: readonly string[], workDir: string): string[] {
  const roots = [...new Set([workDir, realPathOf(workDir)])];
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const name of given) {
    let relative: string | undefined = name;
    if (isAbsolute(name)) {
      const root = roots.find((r) => isWithin(name, r));
      relative = root === undefined ? undefined : pathFrom(root, name);
    }
    const parsed = relative === undefined ? undefined : WorkspacePath.safeParse(relative);
    if (parsed?.success && parsed.data !== "" && !seen.has(parsed.data)) {
      seen.add(parsed.data);
      paths.push(parsed.data);
    }
  }
  return paths;
}
