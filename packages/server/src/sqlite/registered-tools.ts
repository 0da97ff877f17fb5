// The tools programs registered for a session over the Open Harness API (tools.register): a row
// each, handed to the session's runs (RunnerQuery.registeredTools). Written and read by the server's
// thread; removed with the session's rows, copied to its forks.
import type { DatabaseSync } from "node:sqlite";
import type { RegisteredTool } from "@harness/protocol";
import { writing } from "./locked.ts";

export type RegisteredToolStore = {
  /** The session's tools, in the order they were registered. */
  list(userId: string, sessionId: string): RegisteredTool[];
  /** Adds `tool`; false when the session has one of that name already. Throws DatabaseLockedError
   * while another process holds the file's lock. */
  add(userId: string, sessionId: string, tool: RegisteredTool): boolean;
  /** Removes the tool `name`; false when there was none. */
  delete(userId: string, sessionId: string, name: string): boolean;
};

type Row = { name: string; description: string; input_schema: string; url: string };

export function createRegisteredToolStore(db: DatabaseSync): RegisteredToolStore {
  const list = db.prepare("SELECT name, description, input_schema, url FROM registered_tools WHERE user_id = ? AND session_id = ? ORDER BY position");
  const insert = db.prepare(
    `INSERT INTO registered_tools (user_id, session_id, name, description, input_schema, url, position)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, COALESCE((SELECT MAX(position) FROM registered_tools WHERE user_id = ?1 AND session_id = ?2), 0) + 1)
     ON CONFLICT (user_id, session_id, name) DO NOTHING`,
  );
  const remove = db.prepare("DELETE FROM registered_tools WHERE user_id = ? AND session_id = ? AND name = ?");
  return {
    list: (userId, sessionId) =>
      (list.all(userId, sessionId) as Row[]).map((row) => ({ name: row.name, description: row.description, inputSchema: JSON.parse(row.input_schema) as Record<string, unknown>, url: row.url })),
    add: (userId, sessionId, tool) =>
      writing(() => Number(insert.run(userId, sessionId, tool.name, tool.description, JSON.stringify(tool.inputSchema), tool.url).changes) > 0),
    delete: (userId, sessionId, name) => writing(() => Number(remove.run(userId, sessionId, name).changes) > 0),
  };
}
