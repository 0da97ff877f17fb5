// Where the sandboxed commands run in a directory keep their temporary files ($TMPDIR): a
// directory of its own, outside it (the sandbox runtime's default is one directory for every
// sandboxed command on the machine). The server removes a session's with the session.
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";

export function workspaceTmpDir(cwd: string): string {
  return path.join(sandboxTmpRoot(), workspaceKey(cwd));
}

/** Where the conversations in a directory keep their CLAUDE_ENV_FILE (tools/shell/session-env.ts): beside
 * its temporary directory, under the same root, so that a host which hides that root from the other
 * workspaces' commands hides it too; its own sandboxed commands may read it, not write it. */
export function workspaceEnvDir(cwd: string): string {
  return path.join(sandboxTmpRoot(), `${workspaceKey(cwd)}-env`);
}

function workspaceKey(cwd: string): string {
  return createHash("sha256").update(cwd).digest("hex").slice(0, 16);
}

/** The directory that holds every workspace's temporary directory (a host that keeps workspaces
 * apart hides it from their commands, but for each one's own). */
export function sandboxTmpRoot(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return path.join(os.tmpdir(), `harness-sandbox-${uid}`);
}
