// Webhook deliveries not yet done, kept in the session database so that a server stopped (or
// killed) while a receiver was down sends them when it starts again. A row per delivery: which
// webhook and user it is for, its event, the body it carries (the signature is made at each attempt
// from the webhook's secret of that moment), how many attempts it has had and when the next is due.
// A delivery's row is written before its first attempt and deleted once it succeeded or was given up.
import type { DatabaseSync } from "node:sqlite";
import { lockedOr } from "./locked.ts";

export type OutboxRow = {
  id: string;
  webhookId: string;
  userId: string;
  event: string;
  /** The body's own time (also its X-OpenHarness-Timestamp header), ISO 8601. */
  timestamp: string;
  body: string;
  /** Attempts made so far. */
  attempt: number;
  /** When the next attempt is due, ms since the epoch. */
  dueAt: number;
};

export type WebhookOutbox = {
  /** Writes the row (the whole of it). Throws DatabaseLockedError while another process holds the
   * file's lock, like every write below. */
  put(row: OutboxRow): void;
  /** Records that `attempt` attempts were made and the next is due at `dueAt`. */
  reschedule(id: string, attempt: number, dueAt: number): void;
  delete(id: string): void;
  /** Every row, the earliest due first, at most `limit`. */
  all(limit: number): OutboxRow[];
};

type Row = { delivery_id: string; webhook_id: string; user_id: string; event: string; timestamp: string; body: string; attempt: number; due_at: number };

export function createWebhookOutbox(db: DatabaseSync): WebhookOutbox {
  const COLUMNS = "delivery_id, webhook_id, user_id, event, timestamp, body, attempt, due_at";
  const insert = db.prepare(`INSERT OR REPLACE INTO webhook_outbox (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const update = db.prepare("UPDATE webhook_outbox SET attempt = ?, due_at = ? WHERE delivery_id = ?");
  const remove = db.prepare("DELETE FROM webhook_outbox WHERE delivery_id = ?");
  const select = db.prepare(`SELECT ${COLUMNS} FROM webhook_outbox ORDER BY due_at, rowid LIMIT ?`);
  const writing = (write: () => unknown): void => {
    try {
      write();
    } catch (error) {
      throw lockedOr(error);
    }
  };
  return {
    put: (r) => writing(() => insert.run(r.id, r.webhookId, r.userId, r.event, r.timestamp, r.body, r.attempt, r.dueAt)),
    reschedule: (id, attempt, dueAt) => writing(() => update.run(attempt, dueAt, id)),
    delete: (id) => writing(() => remove.run(id)),
    all: (limit) =>
      (select.all(limit) as unknown as Row[]).map((r) => ({
        id: r.delivery_id,
        webhookId: r.webhook_id,
        userId: r.user_id,
        event: r.event,
        timestamp: r.timestamp,
        body: r.body,
        attempt: Number(r.attempt),
        dueAt: Number(r.due_at),
      })),
  };
}
