// The `.mcp.json` servers a session's API caller connected, and so approved for that session's runs:
// a row each, with the fingerprint of the entry as written (@harness/agent's mcpEntryFingerprint).
// Kept here, not in the workspace, which the agent writes: a project cannot approve what it would
// run. Written and read by the server's thread; removed with the session's rows.
import type { DatabaseSync } from "node:sqlite";
import { writing } from "./locked.ts";

/** One approval: the server's name and its entry's fingerprint. */
export type McpApproval = { name: string; entry: string };

export type McpApprovalStore = {
  /** The session's approvals, by name. */
  list(userId: string, sessionId: string): McpApproval[];
  /** Approves `entry` as server `name` (in place of what approved that name before). Throws
   * DatabaseLockedError while another process holds the file's lock. */
  put(userId: string, sessionId: string, approval: McpApproval): void;
  /** Withdraws the approval of `name`; false when there was none. */
  delete(userId: string, sessionId: string, name: string): boolean;
};

export function createMcpApprovalStore(db: DatabaseSync): McpApprovalStore {
  const list = db.prepare("SELECT name, entry FROM mcp_approvals WHERE user_id = ? AND session_id = ? ORDER BY name");
  const upsert = db.prepare(
    `INSERT INTO mcp_approvals (user_id, session_id, name, entry, approved_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (user_id, session_id, name) DO UPDATE SET entry = excluded.entry, approved_at = excluded.approved_at`,
  );
  const remove = db.prepare("DELETE FROM mcp_approvals WHERE user_id = ? AND session_id = ? AND name = ?");
  return {
    list: (userId, sessionId) => (list.all(userId, sessionId) as { name: string; entry: string }[]).map(({ name, entry }) => ({ name, entry })),
    put: (userId, sessionId, { name, entry }) => writing(() => void upsert.run(userId, sessionId, name, entry, Date.now())),
    delete: (userId, sessionId, name) => writing(() => Number(remove.run(userId, sessionId, name).changes) > 0),
  };
}
