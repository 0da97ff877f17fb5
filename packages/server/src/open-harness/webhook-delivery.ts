// Webhook deliveries: a POST of a JSON body to the webhook's URL, signed, off the path of any run.
// Each attempt times out after ATTEMPT_TIMEOUT_MS; a 5xx, 408 or 429, a timeout or a connection
// error is tried again after retryBaseMs, then 5 and 25 times that (RETRIES in all); any other answer
// ends the delivery (redirects are not followed: a 3xx ends it too). At most MAX_PENDING deliveries
// wait or are under way at once, and at most CONCURRENCY attempts: past that, new ones are dropped
// and logged, so a receiver that is down costs bounded memory. The address a URL's name resolves to
// is checked as it is connected to (webhook-url.ts's rule), so a name cannot lead into this network.
import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { isPrivateAddress } from "./webhook-url.ts";

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RETRIES = 3;
export const MAX_PENDING = 1000;
const CONCURRENCY = 8;

export type Delivery = { url: string; secret: string; event: string; id: string; timestamp: string; body: string };

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

export function createDeliverer(options: { allowPrivate: boolean; retryBaseMs: number; log: (line: string) => void }) {
  const lookup = guardedLookup(options.allowPrivate);
  let pending = 0;
  let active = 0;
  let dropping = false;
  const ready: { delivery: Delivery; attempt: number }[] = [];

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
      const { delivery, attempt: n } = ready.shift()!;
      active++;
      void attempt(delivery).then(({ ok, retry, what }) => {
        active--;
        if (!ok && retry && n < RETRIES) {
          const delay = options.retryBaseMs * 5 ** n;
          setTimeout(() => {
            ready.push({ delivery, attempt: n + 1 });
            pump();
          }, delay).unref();
        } else {
          pending--;
          if (!ok) options.log(`webhooks: ${delivery.event} delivery ${delivery.id} to ${new URL(delivery.url).origin} failed (${what}) after ${n + 1} attempt${n ? "s" : ""}`);
        }
        pump();
      });
    }
  }

  return {
    /** Sends `delivery` in the background; dropped (and logged) when MAX_PENDING are waiting. */
    send(delivery: Delivery): void {
      if (pending >= MAX_PENDING) {
        if (!dropping) options.log(`webhooks: ${MAX_PENDING} deliveries are waiting (receivers down or slow): new ones are dropped until some end`);
        dropping = true;
        return;
      }
      dropping = false;
      pending++;
      ready.push({ delivery, attempt: 0 });
      pump();
    },
    /** Deliveries waiting or under way. */
    pending: () => pending,
  };
}

export type Deliverer = ReturnType<typeof createDeliverer>;
