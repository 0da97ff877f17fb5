// How the memory routes name a file: by its path in the session's workspace, "~/…" in the user's
// home, else absolute.
import path from "node:path";

/** `file` as the block's label: relative to the workspace, or to the home as "~/…", else as it is. */
export function labelOf(file: string, cwd: string, home: string): string {
  const within = (dir: string) => {
    const relative = path.relative(dir, file);
    return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative.split(path.sep).join("/") : undefined;
  };
  const inWorkspace = within(cwd);
  if (inWorkspace !== undefined) return inWorkspace;
  const inHome = within(home);
  return inHome !== undefined ? `~/${inHome}` : file;
}
