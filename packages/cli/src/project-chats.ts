// The chats of a project (`harness`, `harness -c`, `harness chat --local`), as `harness run` reads
// them: the sessions its own server keeps in <the project's data directory>/harness.db, read
// without opening the file for writing (a chat may have it open). Only what going on with one
// needs: which was changed last, and its transcript. The tables are the server's
// (packages/server/src/sqlite/schema.ts); a file of an earlier version may lack the later ones.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { TranscriptMessage } from "@harness/protocol";

/** A chat's session: its id and when it last changed (ms since the epoch). */
export type ChatSummary = { id: string; at: number; firstPrompt: string };

export type ProjectChats = {
  /** `userId`'s sessions, the one changed last first. */
  list(): ChatSummary[];
  /** A session's transcript, or undefined when there is no such session. */
  transcript(id: string): TranscriptMessage[] | undefined;
  close(): void;
};

/** The chats kept in `dataDir` for `userId`; undefined when there is no database there. Throws
 * an Error saying why when there is one that cannot be read. */
export async function openProjectChats(dataDir: string, userId: string): Promise<ProjectChats | undefined> {
  const file = join(dataDir, "harness.db");
  if (!existsSync(file)) return undefined;
  const { DatabaseSync } = await import("node:sqlite");
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  } catch (error) {
    throw new Error(`cannot read the chats in ${file}: ${(error as Error).message}`);
  }
  const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  const activity = has("activity");
  const tails = has("transcript_tails");
  const list = db.prepare(
    `SELECT s.session_id AS id, ${activity ? "COALESCE(a.updated_at, s.updated_at)" : "s.updated_at"} AS at,
       CASE WHEN json_valid(s.state) THEN json_extract(s.state, '$.messages[0].content') END AS first
     FROM sessions s ${activity ? "LEFT JOIN activity a ON a.user_id = s.user_id AND a.session_id = s.session_id" : ""}
     WHERE s.user_id = ? ORDER BY at DESC, s.session_id`,
  );
  const whole = db.prepare("SELECT transcript FROM sessions WHERE user_id = ? AND session_id = ?");
  const added = tails ? db.prepare("SELECT position, messages FROM transcript_tails WHERE user_id = ? AND session_id = ? ORDER BY position") : undefined;
  return {
    list: () =>
      (list.all(userId) as { id: string; at: number; first: unknown }[]).map((row) => ({ id: row.id, at: row.at, firstPrompt: typeof row.first === "string" ? row.first : "" })),
    transcript(id) {
      const row = whole.get(userId, id) as { transcript: string } | undefined;
      if (!row) return undefined;
      let transcript = JSON.parse(row.transcript) as TranscriptMessage[];
      // The messages added since it was last written whole, in order (as the server reads them).
      for (const tail of (added?.all(userId, id) ?? []) as { position: number; messages: string }[]) {
        if (tail.position !== transcript.length) throw new Error(`the stored transcript of chat ${id} is broken: messages from position ${tail.position} follow ${transcript.length}`);
        transcript = transcript.concat(JSON.parse(tail.messages) as TranscriptMessage[]);
      }
      return transcript;
    },
    close: () => db.close(),
  };
}
