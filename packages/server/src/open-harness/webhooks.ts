// Webhooks: a user's URLs told of their executions' events. A start is "execution.started"; every
// end is "execution.completed" with the execution's status (completed, failed or cancelled), sent
// to the webhooks subscribed to execution.completed or to the end's own name (execution.failed,
// execution.cancelled), once each. The feed's other events (event-store.ts: session.created,
// skill.installed, hook.triggered, error, …) go to the webhooks subscribed to their type, the body
// `{ event, harness_id, event_id, data, occurred_at, timestamp }` (data as the event list has it:
// a hook.triggered's own `event` field would clash with the body's). The body carries the time it
// was made (`timestamp`, also in a header): the signature covers it, so a receiver refuses an old
// body sent again (see the README).
import { randomBytes } from "node:crypto";
import type { WebhookRow, WebhookStore } from "../sqlite/webhooks.ts";
import type { Deliverer } from "./webhook-delivery.ts";
import type { ArtifactSummary } from "./artifacts.ts";
import type { FeedEvent } from "./event-feed.ts";
import type { Execution } from "./executions.ts";
import { HARNESS_ID } from "./manifest.ts";

export const WEBHOOK_EVENTS = [
  "execution.started",
  "execution.completed",
  "execution.failed",
  "execution.cancelled",
  "session.created",
  "session.ended",
  "skill.installed",
  "skill.uninstalled",
  "hook.triggered",
  "error",
] as const;

/** What an execution tells its user's webhooks: that it started, or that it ended. */
export type ExecutionNotice = { type: "started" | "ended"; execution: Execution };

/** A secret for a webhook registered without one: 256 random bits. */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

/** A webhook as the API shows it: without its secret, which is shown once, on creation. */
export function webhookShape(row: WebhookRow) {
  return { id: row.id, url: row.url, events: row.events, enabled: row.enabled, created_at: new Date(row.createdAt).toISOString() };
}

/** The payload of `notice`, by the spec's ExecutionCompletedWebhook for an end, with the execution's
 * `artifacts` (the signature is in a header, not the body it signs). */
function payloadOf(notice: ExecutionNotice, timestamp: string, artifacts: ArtifactSummary[]): { event: string; body: Record<string, unknown> } {
  const { execution } = notice;
  const common = { execution_id: execution.id, harness_id: HARNESS_ID, session_id: execution.sessionId };
  if (notice.type === "started") return { event: "execution.started", body: { event: "execution.started", ...common, started_at: execution.startedAt, timestamp } };
  return {
    event: "execution.completed",
    body: {
      event: "execution.completed",
      ...common,
      status: execution.watch.status,
      artifacts,
      usage: execution.watch.usage,
      started_at: execution.startedAt,
      completed_at: execution.completedAt ?? timestamp,
      timestamp,
    },
  };
}

/** `notify` sends a notice to the user's enabled webhooks that subscribe to it, in the background:
 * a store that cannot be read or a receiver that is down is logged, never felt by the run.
 * `artifactsOf` gives an ended execution's artifacts. */
export function createWebhookNotifier(store: WebhookStore, deliverer: Deliverer, log: (line: string) => void, artifactsOf: (execution: Execution) => Promise<ArtifactSummary[]> = async () => []) {
  /** The user's enabled webhooks subscribed to any of `names`; none when the store cannot say. */
  function subscribedTo(userId: string, names: readonly string[]): WebhookRow[] {
    try {
      return store.list(userId).filter((hook) => hook.enabled && hook.events.some((e) => names.includes(e)));
    } catch (error) {
      log(`webhooks: cannot read the webhooks of ${userId}: ${(error as Error).message}`);
      return [];
    }
  }
  function send(hooks: readonly WebhookRow[], event: string, timestamp: string, body: Record<string, unknown>): void {
    const text = JSON.stringify(body);
    for (const hook of hooks) {
      deliverer.send({ webhookId: hook.id, userId: hook.userId, url: hook.url, secret: hook.secret, event, id: crypto.randomUUID(), timestamp, body: text });
    }
  }
  async function deliver(notice: ExecutionNotice): Promise<void> {
    const names = notice.type === "started" ? ["execution.started"] : ["execution.completed", `execution.${notice.execution.watch.status}`];
    const subscribed = subscribedTo(notice.execution.userId, names);
    if (subscribed.length === 0) return;
    let artifacts: ArtifactSummary[] = [];
    if (notice.type === "ended") {
      try {
        artifacts = await artifactsOf(notice.execution);
      } catch (error) {
        log(`webhooks: cannot list the artifacts of execution ${notice.execution.id}: ${(error as Error).message}`);
      }
    }
    const timestamp = new Date().toISOString();
    const { event, body } = payloadOf(notice, timestamp, artifacts);
    send(subscribed, event, timestamp, body);
  }
  return {
    notify(notice: ExecutionNotice): void {
      setImmediate(() => void deliver(notice));
    },
    /** Sends one of the feed's other events of `userId`'s to their webhooks subscribed to its type. */
    notifyEvent(userId: string, event: FeedEvent): void {
      setImmediate(() => {
        const subscribed = subscribedTo(userId, [event.type]);
        if (subscribed.length === 0) return;
        const timestamp = new Date().toISOString();
        send(subscribed, event.type, timestamp, { event: event.type, harness_id: HARNESS_ID, event_id: event.id, data: event.data, occurred_at: event.timestamp, timestamp });
      });
    },
  };
}
