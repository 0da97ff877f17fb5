// The session database's tables, and bringing a file written by an older version up to date. Both
// connections (the server's reads, the writer thread's writes) open the file through here.
import { chmodSync, closeSync, openSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { FEED_EVENTS_SCHEMA } from "./feed-events.ts";
import { isBusy } from "./locked.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  state TEXT NOT NULL,
  seq INTEGER NOT NULL,
  transcript TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  clean INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runners (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  pid INTEGER NOT NULL,
  url TEXT NOT NULL,
  token TEXT,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS activity (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  run TEXT,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deleted_sessions (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS transcript_tails (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  messages TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_marks (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  marks TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS open_mark (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  open INTEGER NOT NULL,
  floor INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS executions (
  execution_id TEXT NOT NULL PRIMARY KEY,
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  status TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS executions_by_user ON executions (user_id, started_at);
CREATE INDEX IF NOT EXISTS executions_by_end ON executions (ended_at);
CREATE TABLE IF NOT EXISTS webhooks (
  webhook_id TEXT NOT NULL PRIMARY KEY,
  user_id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_by_user ON webhooks (user_id, created_at);
CREATE TABLE IF NOT EXISTS webhook_outbox (
  delivery_id TEXT NOT NULL PRIMARY KEY,
  webhook_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  event TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  body TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  due_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS mcp_approvals (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  name TEXT NOT NULL,
  entry TEXT NOT NULL,
  approved_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, session_id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS registered_tools (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  input_schema TEXT NOT NULL,
  url TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (user_id, session_id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conformance_runs (
  run_id TEXT NOT NULL PRIMARY KEY,
  user_id TEXT NOT NULL,
  run_at INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conformance_runs_by_user ON conformance_runs (user_id, run_at);
CREATE TABLE IF NOT EXISTS registered_harnesses (
  harness_id TEXT NOT NULL PRIMARY KEY,
  record TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deltas (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ops TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id, seq)
) WITHOUT ROWID;
${FEED_EVENTS_SCHEMA}`;

// The Open Harness API's executions (sqlite/executions.ts) have a row each: when it started and
// ended, and what it came to (its events, output, tool calls) as the API layer encodes it. An older
// server ignores the table. So it does the webhooks table (sqlite/webhooks.ts): a row per webhook a
// user registered over that API, and the webhook_outbox (sqlite/webhook-outbox.ts): a row per
// delivery to one of them not yet done. So it does mcp_approvals (sqlite/mcp-approvals.ts): a row
// per .mcp.json server a session's API caller connected; and registered_tools
// (sqlite/registered-tools.ts): a row per tool a program registered for a session; and
// conformance_runs (sqlite/conformance-runs.ts): a row per conformance run a user made, the last 50;
// and feed_events (sqlite/feed-events.ts): a row per event of the Open Harness event feed other than
// an execution's start or end, the last 7 days' and at most 10,000 a user; and registered_harnesses
// (sqlite/registered-harnesses.ts): a row per harness the administrator registered with this
// server's Open Harness registry.
//
// A session's transcript is sessions.transcript (written whole now and then) followed by the
// messages runs added since, a transcript_tails row each (position: the index of its first message):
// a run of a long conversation adds kilobytes, not the megabytes of all of it.
//
// What changes with every write (the time of the last change, the run record) lives in the small
// "activity" row, not in the session row: rewriting a session row rewrites its whole state and
// transcript, which a hundred streaming sessions cannot afford a couple of thousand times a second.
// For the same reason the marks, which change with every run, have a row of their own
// (session_marks); sessions.marks holds only those of files written by earlier versions, read
// until the session's marks are next written.

/** Columns added after the first version, with their tables and definitions, and what brings the
 * rows of a file made before up to date, run as the column is added. */
const ADDED_COLUMNS: [string, string, string, string?][] = [
  ["sessions", "clean", "INTEGER NOT NULL DEFAULT 0"],
  ["sessions", "run", "TEXT"],
  ["sessions", "marks", "TEXT"],
  ["sessions", "title", "TEXT"],
  ["sessions", "created_at", "INTEGER"],
  ["runners", "token", "TEXT"],
  // When the session was deleted (ms since the epoch); null for those deleted by older versions.
  ["deleted_sessions", "deleted_at", "INTEGER"],
  // Sessions whose row says "closed cleanly" and was written before this time (ms since the epoch)
  // may have been opened since by a server that died. Read only to bring a file up to date, below.
  ["open_mark", "suspect_before", "INTEGER NOT NULL DEFAULT 0"],
  // How many times a server opened the file, and the first opening whose clean closes are trusted
  // (open-mark.ts).
  ["open_mark", "opened", "INTEGER NOT NULL DEFAULT 0"],
  ["open_mark", "trusted_from", "INTEGER NOT NULL DEFAULT 0"],
  // The opening that closed the session cleanly; null: none trusted. Rows closed cleanly before it
  // existed keep what suspect_before said of them, as closed by opening 0.
  [
    "sessions",
    "closed_by",
    "INTEGER",
    "UPDATE sessions SET closed_by = 0 WHERE clean = 1 AND updated_at >= COALESCE((SELECT suspect_before FROM open_mark WHERE id = 1), 0)",
  ],
];

/** The version of the file's format, kept in its user_version. A change an older server would
 * misread or undo (a table or column it does not maintain, data moved elsewhere) raises it: an
 * older server then refuses the file instead of working on it. Columns and tables an older server
 * can ignore do not. 0: a file from before versions were written, read as version 1. */
export const FORMAT_VERSION = 1;

/** The file at `path` was written by a newer version of Harness. */
class NewerFormatError extends Error {
  constructor(found: number) {
    super(
      `it was written by a newer version of Harness (format ${found}; this one reads up to ${FORMAT_VERSION}): run that version or a later one, or give this one another data directory`,
    );
    this.name = "NewerFormatError";
  }
}

/** A connection to a file whose tables exist (see openDatabaseFile); `busyMs`: how long a write
 * waits for the file's lock before failing with SQLITE_BUSY. */
export function connect(path: string, busyMs = 5000): DatabaseSync {
  const db = new DatabaseSync(path);
  // WAL: the reading connection never waits for the writing one. NORMAL: a commit does not wait for
  // the disk; a power cut may lose the last commits, never the file.
  // The WAL is cut back to this size after a checkpoint empties it (otherwise it stays as large as
  // it ever grew). auto_vacuum first: it takes only in a file that has no tables yet and is not yet
  // in WAL mode; a new file then frees the pages of deleted sessions back to the file system (the
  // writer thread runs incremental_vacuum after deletions), a file made by an older version keeps
  // reusing them instead.
  // auto_vacuum needs the file's lock even where it changes nothing: while another process holds
  // that lock, a connection made now (the writer thread's, started at the first write) goes without
  // it, as it would in a file that has tables already.
  try {
    db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  } catch (error) {
    if (!isBusy(error)) throw error;
  }
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = ${busyMs}; PRAGMA journal_size_limit = 16777216;`);
  return db;
}

/** Opens `path`, creating or migrating its tables. The file holds conversations and runners'
 * tokens: it is readable by its owner only (SQLite gives its WAL files the same mode). */
export function openDatabaseFile(path: string): DatabaseSync {
  closeSync(openSync(path, "a", 0o600));
  try {
    chmodSync(path, 0o600);
  } catch {
    // Not ours to change: it stays as its owner set it.
  }
  const db = connect(path);
  const found = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (found > FORMAT_VERSION) {
    db.close();
    throw new NewerFormatError(found);
  }
  db.exec(SCHEMA);
  const hasColumn = db.prepare("SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
  for (const [table, name, definition, update] of ADDED_COLUMNS) {
    if (hasColumn.get(table, name)) continue;
    db.exec(`BEGIN IMMEDIATE; ALTER TABLE ${table} ADD COLUMN ${name} ${definition}; ${update ?? ""}; COMMIT`);
  }
  // Run records written by versions that kept them in the session row move to the activity row.
  db.exec(`INSERT OR IGNORE INTO activity (user_id, session_id, updated_at, run)
             SELECT user_id, session_id, updated_at, run FROM sessions WHERE run IS NOT NULL;
           UPDATE sessions SET run = NULL WHERE run IS NOT NULL;`);
  if (found < FORMAT_VERSION) db.exec(`PRAGMA user_version = ${FORMAT_VERSION}`);
  return db;
}
