// Where a session's workspace lives on a runner host: its id there (in its URL), and the host of a
// workspace's URL. Pure functions of their arguments.
import { createHash } from "node:crypto";

/** A workspace's id on a runner host: stable for a workspace path, so that a server that restarts
 * finds the same one. */
export function workspaceId(workspace: string): string {
  return createHash("sha256").update(workspace).digest("base64url").slice(0, 24);
}

/** The base URL of the runner process that serves the workspace at `url`. */
export function hostOf(url: string): string {
  return url.replace(/\/workspaces\/[^/]+\/?$/, "");
}
