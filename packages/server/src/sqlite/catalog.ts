// The sessions of each user as a catalog (list, create, rename) and the runner process each
// session last had, in the same SQLite file as the sessions themselves.
import type { DatabaseSync } from "node:sqlite";
import { bashModeCommand, emptyState, isBuiltinCommandPrompt, type HarnessMessage, type SessionSummary } from "@harness/protocol";
import { firstSeqAfter, type SessionSnapshot } from "@harness/session";
import type { RunnerProcessInfo } from "../runners/process.ts";
import { lockedOr } from "./locked.ts";

/** `write`, with a lock held by another process said as such. */
function writing<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw lockedOr(error);
  }
}

/** `named`: the title was given (on create, rename or fork), not taken from the stored prompts. */
export type ListedSession = SessionSummary & { named: boolean };

export type SessionCatalog = {
  /** The user's sessions, most recently active first. */
  list(userId: string): ListedSession[];
  exists(userId: string, sessionId: string): boolean;
  /** The last seq a deleted session of this id reached (0: none was deleted). */
  deletedSeq(userId: string, sessionId: string): number;
  /** Creates a session (empty, or holding `snapshot`); false when the id is taken. This and the
   * other writes throw DatabaseLockedError while another process holds the file's lock. */
  create(userId: string, sessionId: string, init: { title?: string; snapshot?: SessionSnapshot }): boolean;
  /** The title given to the session (on create, rename or fork), if one was. */
  titleOf(userId: string, sessionId: string): string | undefined;
  /** False when there is no such session. */
  rename(userId: string, sessionId: string, title: string): boolean;
  runnerOf(userId: string, sessionId: string): RunnerProcessInfo | undefined;
  setRunner(userId: string, sessionId: string, runner: RunnerProcessInfo | undefined): void;
};

export const TITLE_FROM_PROMPT_CHARS = 60;

/** Characters a title never holds: controls (a terminal would act on them) and the bidirectional
 * overrides and isolates (they would reorder what is shown after them). */
export const TITLE_CONTROLS = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** The default title: the first prompt's first characters (whole ones, never half a surrogate
 * pair), on one line, without control characters; a bash-mode prompt as it was typed ("!ls"). */
export function titleFromPrompt(prompt: string): string {
  const command = bashModeCommand(prompt);
  const line = (command === undefined ? prompt : `!${command}`).replace(new RegExp(`(?:\\s|${TITLE_CONTROLS.source})+`, "gu"), " ").trim();
  return Array.from(line).slice(0, TITLE_FROM_PROMPT_CHARS).join("").toWellFormed();
}

/** How much of a prompt a title is taken from (the list reads no more of it). */
const PROMPT_READ_CHARS = 400;

/** The title of a conversation no one named: its first prompt that reached the model (a chat opened
 * with /help or /cost is not named after it; Claude Code's titles pass over its built-ins too). */
export function defaultTitle(messages: readonly HarnessMessage[]): string | null {
  const first = messages.find((message) => message.role === "user" && !isBuiltinCommandPrompt(message.content.slice(0, PROMPT_READ_CHARS)));
  return first ? titleFromPrompt(first.content.slice(0, PROMPT_READ_CHARS)) : null;
}

type ListRow = {
  session_id: string;
  title: string | null;
  status: string | null;
  count: number | null;
  first: string | null;
  created_at: number | null;
  updated_at: number;
};

/** For a session the file does not hold: the highest seq its clients may hold (SessionStore.unstoredSeq):
 * the last seq a deleted session of this id reached, or `floor` (see open-mark.ts). */
export function unstoredSeqOf(db: DatabaseSync, userId: string, sessionId: string, floor: number): number {
  const row = db.prepare("SELECT seq FROM deleted_sessions WHERE user_id = ? AND session_id = ?").get(userId, sessionId) as { seq: number } | undefined;
  return Math.max(row?.seq ?? 0, floor);
}

/** `opening`: the server's (open-mark.ts); a session it creates is closed cleanly by it. */
export function createCatalog(db: DatabaseSync, floor: number, opening: number): SessionCatalog {
  db.function("harness_builtin_command", { deterministic: true }, (prompt) => (typeof prompt === "string" && isBuiltinCommandPrompt(prompt) ? 1 : 0));
  const list = db.prepare(
    // A session whose stored state is not JSON (a damaged file) is listed as "damaged", not allowed
    // to fail the whole list: the json functions throw on it. A session changed when a batch of it
    // was last stored or it was renamed (activity); the row's own time also moves when the session
    // is closed or its state stored whole, which a user does not see, so it counts only for a
    // session with no activity yet (made, or forked, and never written). `first` is the prompt
    // defaultTitle takes: the first message's, as it nearly always is, read without walking the
    // messages (the walk sorts them all: 40 times slower on long conversations).
    `SELECT s.session_id, s.title,
       CASE WHEN json_valid(s.state) THEN json_extract(s.state, '$.status') ELSE 'damaged' END AS status,
       CASE WHEN json_valid(s.state) THEN json_array_length(s.state, '$.messages') END AS count,
       CASE WHEN NOT json_valid(s.state) THEN NULL
         WHEN json_extract(s.state, '$.messages[0].role') = 'user' AND NOT harness_builtin_command(substr(json_extract(s.state, '$.messages[0].content'), 1, ${PROMPT_READ_CHARS}))
         THEN substr(json_extract(s.state, '$.messages[0].content'), 1, ${PROMPT_READ_CHARS})
         ELSE (
         SELECT substr(json_extract(m.value, '$.content'), 1, ${PROMPT_READ_CHARS}) FROM json_each(s.state, '$.messages') m
         WHERE json_extract(m.value, '$.role') = 'user' AND NOT harness_builtin_command(substr(json_extract(m.value, '$.content'), 1, ${PROMPT_READ_CHARS}))
         ORDER BY m.key LIMIT 1) END AS first, s.created_at,
       COALESCE(a.updated_at, s.updated_at) AS updated_at
     FROM sessions s LEFT JOIN activity a ON a.user_id = s.user_id AND a.session_id = s.session_id
     WHERE s.user_id = ? ORDER BY updated_at DESC, s.created_at DESC, s.session_id`,
  );
  const exists = db.prepare("SELECT 1 AS found FROM sessions WHERE user_id = ? AND session_id = ?");
  const deleted = db.prepare("SELECT seq FROM deleted_sessions WHERE user_id = ? AND session_id = ?");
  const insert = db.prepare(
    `INSERT INTO sessions (user_id, session_id, state, seq, transcript, updated_at, created_at, clean, closed_by, title)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, ${opening}, ?) ON CONFLICT (user_id, session_id) DO NOTHING`,
  );
  const insertMarks = db.prepare("INSERT OR REPLACE INTO session_marks (user_id, session_id, marks) VALUES (?, ?, ?)");
  const titleOf = db.prepare("SELECT title FROM sessions WHERE user_id = ? AND session_id = ?");
  const rename = db.prepare("UPDATE sessions SET title = ?, updated_at = ? WHERE user_id = ? AND session_id = ?");
  const touch = db.prepare(
    `INSERT INTO activity (user_id, session_id, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at`,
  );
  const runnerOf = db.prepare("SELECT pid, url, token FROM runners WHERE user_id = ? AND session_id = ?");
  const setRunner = db.prepare(
    "INSERT INTO runners (user_id, session_id, pid, url, token) VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, session_id) DO UPDATE SET pid = excluded.pid, url = excluded.url, token = excluded.token",
  );
  const clearRunner = db.prepare("DELETE FROM runners WHERE user_id = ? AND session_id = ?");

  return {
    list(userId) {
      return (list.all(userId) as unknown as ListRow[]).map((row) => ({
        sessionId: row.session_id,
        title: row.title ?? (row.first !== null ? titleFromPrompt(row.first) : null),
        named: row.title !== null,
        status: row.status ?? "idle",
        messageCount: row.count ?? 0,
        createdAt: new Date(row.created_at ?? row.updated_at).toISOString(),
        updatedAt: new Date(row.updated_at).toISOString(),
      }));
    },
    exists: (userId, sessionId) => exists.get(userId, sessionId) !== undefined,
    deletedSeq: (userId, sessionId) => (deleted.get(userId, sessionId) as { seq: number } | undefined)?.seq ?? 0,
    create: (userId, sessionId, init) => writing(() => {
      const now = Date.now();
      const snapshot = init.snapshot ?? { state: emptyState(), seq: 0, transcript: [], marks: {} };
      const result = insert.run(
        userId,
        sessionId,
        JSON.stringify(snapshot.state),
        firstSeqAfter(unstoredSeqOf(db, userId, sessionId, floor), snapshot.seq),
        JSON.stringify(snapshot.transcript),
        now,
        now,
        init.title ?? null,
      );
      if (Number(result.changes) !== 1) return false;
      insertMarks.run(userId, sessionId, JSON.stringify(snapshot.marks ?? {}));
      return true;
    }),
    titleOf: (userId, sessionId) => (titleOf.get(userId, sessionId) as { title: string | null } | undefined)?.title ?? undefined,
    rename: (userId, sessionId, title) =>
      writing(() => {
        const now = Date.now();
        if (Number(rename.run(title, now, userId, sessionId).changes) !== 1) return false;
        touch.run(userId, sessionId, now);
        return true;
      }),
    runnerOf(userId, sessionId) {
      const row = runnerOf.get(userId, sessionId) as { pid: number; url: string; token: string | null } | undefined;
      return row && { pid: row.pid, url: row.url, ...(row.token !== null && { token: row.token }) };
    },
    setRunner: (userId, sessionId, runner) =>
      writing(() => {
        if (runner) setRunner.run(userId, sessionId, runner.pid, runner.url, runner.token ?? null);
        else clearRunner.run(userId, sessionId);
      }),
  };
}
