// The Open Harness API's webhooks as stored, in the session database: a row each, written and read
// by the server's thread. What the API checks of a webhook (its URL, its events) is the API layer's
// (open-harness/webhooks.ts); here a webhook is its fields. At most MAX_WEBHOOKS_PER_USER a user.
import type { DatabaseSync } from "node:sqlite";
import { writing } from "./locked.ts";

export const MAX_WEBHOOKS_PER_USER = 50;

export type WebhookRow = {
  id: string;
  userId: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  /** ms since the epoch. */
  createdAt: number;
};

export type WebhookStore = {
  /** Writes the row (the whole of it). Throws DatabaseLockedError while another process holds the
   * file's lock. */
  put(row: WebhookRow): void;
  /** The user's webhook of that id. */
  get(userId: string, id: string): WebhookRow | undefined;
  /** The user's webhooks, the oldest first. */
  list(userId: string): WebhookRow[];
  /** Deletes the user's webhook of that id; false when there was none. */
  delete(userId: string, id: string): boolean;
};

type Row = { webhook_id: string; user_id: string; url: string; events: string; secret: string; enabled: number; created_at: number };

/** A row whose events do not read as a list of strings (a damaged file) reads as one with none. */
function eventsOf(text: string): string[] {
  try {
    const events: unknown = JSON.parse(text);
    return Array.isArray(events) ? events.filter((e): e is string => typeof e === "string") : [];
  } catch {
    return [];
  }
}

const rowOf = (r: Row): WebhookRow => ({
  id: r.webhook_id,
  userId: r.user_id,
  url: r.url,
  events: eventsOf(r.events),
  secret: r.secret,
  enabled: r.enabled === 1,
  createdAt: r.created_at,
});

export function createWebhookStore(db: DatabaseSync): WebhookStore {
  const COLUMNS = "webhook_id, user_id, url, events, secret, enabled, created_at";
  const upsert = db.prepare(
    `INSERT INTO webhooks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (webhook_id) DO UPDATE SET url = excluded.url, events = excluded.events, secret = excluded.secret, enabled = excluded.enabled`,
  );
  const get = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE webhook_id = ? AND user_id = ?`);
  const list = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE user_id = ? ORDER BY created_at, rowid`);
  const remove = db.prepare("DELETE FROM webhooks WHERE webhook_id = ? AND user_id = ?");
  return {
    put: (row) => writing(() => upsert.run(row.id, row.userId, row.url, JSON.stringify(row.events), row.secret, row.enabled ? 1 : 0, row.createdAt)),
    get: (userId, id) => {
      const found = get.get(id, userId) as Row | undefined;
      return found && rowOf(found);
    },
    list: (userId) => (list.all(userId) as unknown as Row[]).map(rowOf),
    delete: (userId, id) => writing(() => Number(remove.run(id, userId).changes) > 0),
  };
}
