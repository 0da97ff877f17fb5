// Webhooks: a user's URLs told of their executions' events. A start is "execution.started"; every
// end is "execution.completed" with the execution's status (completed, failed or cancelled), sent
// to the webhooks subscribed to execution.completed or to the end's own name (execution.failed,
// execution.cancelled), once each. The body carries the time it was made (`timestamp`, also in a
// header): the signature covers it, so a receiver refuses an old body sent again (see the README).
import { randomBytes } from "node:crypto";
import type { WebhookRow, WebhookStore } from "../sqlite/webhooks.ts";
import type { Deliverer } from "./webhook-delivery.ts";
import type { ArtifactSummary } from "./artifacts.ts";
import type { Execution } from "./executions.ts";
import { HARNESS_ID } from "./manifest.ts";

export const WEBHOOK_EVENTS = ["execution.started", "execution.completed", "execution.failed", "execution.cancelled"] as const;

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
  async function deliver(notice: ExecutionNotice): Promise<void> {
    let hooks: WebhookRow[];
    try {
      hooks = store.list(notice.execution.userId);
    } catch (error) {
      log(`webhooks: cannot read the webhooks of ${notice.execution.userId}: ${(error as Error).message}`);
      return;
    }
    const names = notice.type === "started" ? ["execution.started"] : ["execution.completed", `execution.${notice.execution.watch.status}`];
    const subscribed = hooks.filter((hook) => hook.enabled && hook.events.some((e) => names.includes(e)));
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
    const text = JSON.stringify(body);
    for (const hook of subscribed) {
      deliverer.send({ webhookId: hook.id, userId: hook.userId, url: hook.url, secret: hook.secret, event, id: crypto.randomUUID(), timestamp, body: text });
    }
  }
  return {
    notify(notice: ExecutionNotice): void {
      setImmediate(() => void deliver(notice));
    },
  };
}
