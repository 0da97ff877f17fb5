// Webhook deliveries: a POST of a JSON body to the webhook's URL, signed, off the path of any run.
// Each attempt times out after ATTEMPT_TIMEOUT_MS; a 5xx, 408 or 429, a timeout or a connection
// error is tried again after retryBaseMs, then 5 and 25 times that (RETRIES in all); any other answer
// ends the delivery (redirects are not followed: a 3xx ends it too). At most MAX_PENDING deliveries
// wait or are under way at once, and at most CONCURRENCY attempts: past that, new ones are dropped
// and logged, so a receiver that is down costs bounded memory. The address a URL's name resolves to
// is checked as it is connected to (webhook-url.ts's rule), so a name cannot lead into this network.
// With an outbox (sqlite/webhook-outbox.ts), a delivery is written down before its first attempt,
// its retries' times as they are set, and deleted once it ends, so that a server that stops while
// a receiver is down sends it when it starts again (resumeDeliveries): at least once, never lost to
// a restart. A store that cannot be written (locked by another process) leaves it in memory only.
// With the webhooks' store, each attempt goes to the webhook as it is then (its URL and secret): a
// delivery whose webhook was deleted or disabled meanwhile ends without another attempt.
import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { isPrivateAddress } from "./webhook-url.ts";
import type { OutboxRow, WebhookOutbox } from "../sqlite/webhook-outbox.ts";
import type { WebhookRow, WebhookStore } from "../sqlite/webhooks.ts";

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RETRIES = 3;
export const MAX_PENDING = 1000;
const CONCURRENCY = 8;

/** A delivery: the webhook it is for (its URL and secret as they were when it was made or resumed),
 * its event and body. `id` is its X-OpenHarness-Delivery header, the same on every attempt. */
export type Delivery = { webhookId: string; userId: string; url: string; secret: string; event: string; id: string; timestamp: string; body: string };

/** Deliveries an earlier server left are sent at most one per this long (those already due too): a
 * thousand of them reach their receivers over a minute, not at the same instant. */
export const RESUME_SPACING_MS = 60;

/** Deliveries found in the outbox older than this (by their body's timestamp) are given up. */
export const MAX_OUTBOX_AGE_MS = 24 * 60 * 60_000;

/** The signature header's value for `body`: HMAC-SHA256 of the raw body with the secret, hex. */
export const signatureOf = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** A lookup that refuses the private addresses (webhook-url.ts), unless they are allowed. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(Object.assign(new Error(`${hostname} resolves to ${refused.address}, an address of this machine or its network (HARNESS_WEBHOOKS_ALLOW_PRIVATE is off)`), { code: "EPRIVATE" }), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

type Outcome = { ok: boolean; retry: boolean; what: string };

/** Why a delivery to `hook` is not to be made (any more), or undefined when it is. */
const hookProblem = (hook: WebhookRow | undefined): string | undefined => (!hook ? "its webhook was deleted" : !hook.enabled ? "its webhook is disabled" : undefined);

export type DelivererOptions = { allowPrivate: boolean; retryBaseMs: number; log: (line: string) => void; outbox?: WebhookOutbox; webhooks?: WebhookStore };

export function createDeliverer(options: DelivererOptions) {
  const lookup = guardedLookup(options.allowPrivate);
  let storeFailing = false;
  /** Writes to the outbox; a failure is logged once (until a write succeeds again) and the delivery goes on in memory. */
  function keep(write: (outbox: WebhookOutbox) => void): void {
    if (!options.outbox) return;
    try {
      write(options.outbox);
      storeFailing = false;
    } catch (error) {
      if (!storeFailing) options.log(`webhooks: cannot write down deliveries (${(error as Error).message}): those under way now are lost if the server stops before they end`);
      storeFailing = true;
    }
  }
  let pending = 0;
  let active = 0;
  let dropping = false;
  const ready: { delivery: Delivery; attempt: number }[] = [];
  /** The ids of the deliveries waiting or under way: one resumed again is not sent twice. */
  const under = new Set<string>();

  /** `delivery` to its webhook as it is now, or why it is not to be tried again. */
  function current(delivery: Delivery): Delivery | string {
    if (!options.webhooks) return delivery;
    let hook;
    try {
      hook = options.webhooks.get(delivery.userId, delivery.webhookId);
    } catch {
      return delivery; // The store does not answer now: the delivery goes as it was made.
    }
    if (hook?.enabled) return { ...delivery, url: hook.url, secret: hook.secret };
    return hookProblem(hook)!;
  }

  function end(delivery: Delivery): void {
    pending--;
    under.delete(delivery.id);
    keep((outbox) => outbox.delete(delivery.id));
  }

  /** One POST: whether to try again, and what came of it (for the log). */
  function attempt(delivery: Delivery): Promise<Outcome> {
    return new Promise((resolve) => {
      const url = new URL(delivery.url);
      const request = url.protocol === "https:" ? httpsRequest : httpRequest;
      // An address in the URL is checked by the URL's rule alone (no lookup happens for it).
      const req = request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(delivery.body),
          "user-agent": "Harness-Webhooks",
          "x-openharness-event": delivery.event,
          "x-openharness-delivery": delivery.id,
          "x-openharness-timestamp": delivery.timestamp,
          "x-openharness-signature": signatureOf(delivery.secret, delivery.body),
        },
        ...(isIP(url.hostname.replace(/^\[(.*)\]$/, "$1")) === 0 && { lookup }),
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      req.on("response", (res: IncomingMessage) => {
        // Only the status counts: the body is not read (a receiver's endless answer costs nothing).
        res.destroy();
        const status = res.statusCode ?? 0;
        resolve({ ok: status >= 200 && status < 300, retry: status >= 500 || status === 408 || status === 429, what: `answered ${status}` });
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        const timedOut = error.name === "AbortError" || error.name === "TimeoutError";
        resolve({ ok: false, retry: error.code !== "EPRIVATE", what: timedOut ? `no answer in ${ATTEMPT_TIMEOUT_MS} ms` : error.message });
      });
      req.end(delivery.body);
    });
  }

  function pump(): void {
    while (active < CONCURRENCY && ready.length > 0) {
      const next = ready.shift()!;
      const n = next.attempt;
      const delivery = current(next.delivery);
      if (typeof delivery === "string") {
        end(next.delivery);
        options.log(`webhooks: ${next.delivery.event} delivery ${next.delivery.id} not sent again: ${delivery}`);
        continue;
      }
      active++;
      void attempt(delivery).then(({ ok, retry, what }) => {
        active--;
        if (!ok && retry && n < RETRIES) {
          const delay = options.retryBaseMs * 5 ** n;
          keep((outbox) => outbox.reschedule(delivery.id, n + 1, Date.now() + delay));
          later(delivery, n + 1, delay);
        } else {
          end(delivery);
          if (!ok) options.log(`webhooks: ${delivery.event} delivery ${delivery.id} to ${new URL(delivery.url).origin} failed (${what}) after ${n + 1} attempt${n ? "s" : ""}`);
        }
        pump();
      });
    }
  }

  function later(delivery: Delivery, attempt: number, delayMs: number): void {
    setTimeout(() => {
      ready.push({ delivery, attempt });
      pump();
    }, delayMs).unref();
  }

  /** Whether there is room for one more delivery; when not, says so once. */
  function admit(id: string): boolean {
    if (pending >= MAX_PENDING) {
      if (!dropping) options.log(`webhooks: ${MAX_PENDING} deliveries are waiting (receivers down or slow): new ones are dropped until some end`);
      dropping = true;
      return false;
    }
    dropping = false;
    pending++;
    under.add(id);
    return true;
  }

  return {
    /** Sends `delivery` in the background; dropped (and logged) when MAX_PENDING are waiting. */
    send(delivery: Delivery): void {
      if (!admit(delivery.id)) return;
      keep((outbox) => outbox.put({ id: delivery.id, webhookId: delivery.webhookId, userId: delivery.userId, event: delivery.event, timestamp: delivery.timestamp, body: delivery.body, attempt: 0, dueAt: Date.now() }));
      ready.push({ delivery, attempt: 0 });
      pump();
    },
    /** Goes on with a delivery an earlier server wrote down, `attempt` attempts made, the next due at
     * `dueAt` (at once if that has passed). False when there is no room for it (it stays written down)
     * or it goes on already. */
    resume(delivery: Delivery, attempt: number, dueAt: number): boolean {
      if (under.has(delivery.id) || !admit(delivery.id)) return false;
      later(delivery, attempt, Math.max(0, dueAt - Date.now()));
      return true;
    },
    /** Deliveries waiting or under way. */
    pending: () => pending,
  };
}

export type Deliverer = ReturnType<typeof createDeliverer>;

/** Sends again the deliveries an earlier server wrote down and did not end: each to its webhook as
 * it is now (its URL and secret), unless the webhook is gone or disabled, or the delivery is older
 * than MAX_OUTBOX_AGE_MS; those are deleted. Spaced RESUME_SPACING_MS apart. Returns how many go on. */
export function resumeDeliveries(outbox: WebhookOutbox, webhooks: WebhookStore, deliverer: Deliverer, log: (line: string) => void): number {
  let rows: OutboxRow[];
  try {
    rows = outbox.all(MAX_PENDING);
  } catch (error) {
    log(`webhooks: cannot read the deliveries an earlier server left: ${(error as Error).message}`);
    return 0;
  }
  let resumed = 0;
  const now = Date.now();
  const dropped: string[] = [];
  for (const row of rows) {
    const hook = webhooks.get(row.userId, row.webhookId);
    const age = Date.now() - Date.parse(row.timestamp);
    const why = hookProblem(hook) ?? (!(age <= MAX_OUTBOX_AGE_MS) ? "it is over a day old" : row.attempt > RETRIES ? "its attempts are used up" : undefined);
    if (why !== undefined || hook === undefined) {
      dropped.push(`${row.event} delivery ${row.id} (${why})`);
      try {
        outbox.delete(row.id);
      } catch {
        // Still locked: tried again at the next start.
      }
      continue;
    }
    const delivery: Delivery = { webhookId: row.webhookId, userId: row.userId, url: hook.url, secret: hook.secret, event: row.event, id: row.id, timestamp: row.timestamp, body: row.body };
    if (deliverer.resume(delivery, row.attempt, Math.max(row.dueAt, now + resumed * RESUME_SPACING_MS))) resumed++;
  }
  if (dropped.length > 0) log(`webhooks: not sent: ${dropped.slice(0, 5).join("; ")}${dropped.length > 5 ? ` and ${dropped.length - 5} more` : ""}`);
  if (resumed > 0) log(`webhooks: ${resumed} deliver${resumed === 1 ? "y" : "ies"} an earlier server did not finish go on`);
  return resumed;
}
