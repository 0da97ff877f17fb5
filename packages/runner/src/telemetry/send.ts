// Sends one OTLP request and says how it went, as a value: never throws, never retries forever.
// http/json and http/protobuf POST to the signal's URL; grpc frames the same protobuf bytes (one
// uncompressed 5-byte-prefixed message) on an HTTP/2 stream to the service's Export method and
// reads grpc-status from the trailers. What OTLP calls retryable (HTTP 429, 502, 503, 504; gRPC
// UNAVAILABLE, RESOURCE_EXHAUSTED) is tried again a few times, within the caller's signal: after
// the answer's Retry-After (at most 5 s), else after a backoff that doubles from 200 ms.
import type { Protocol, SignalName } from "./config.ts";

export type SendResult = { ok: true } | { ok: false; kind: string; detail: string };

export type Request = {
  signal: SignalName;
  protocol: Protocol;
  endpoint: string;
  headers: Readonly<Record<string, string>>;
  body: Uint8Array<ArrayBuffer> | string;
};

const RETRIES = 3;
/** The HTTP statuses OTLP/HTTP says to try again. */
const RETRYABLE = new Set([429, 502, 503, 504]);
const BACKOFF_MS = 200;
/** One attempt's own limit: a collector that holds a request open must not hold the next export. */
const ATTEMPT_MS = 10_000;

export async function send(request: Request, signal: AbortSignal): Promise<SendResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await sendOnce(request, AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_MS)]));
    if (result.ok || result.retryAfterMs === undefined || attempt > RETRIES || signal.aborted) return result.ok ? result : { ok: false, kind: result.kind, detail: result.detail };
    const wait = Math.min(result.retryAfterMs, 5_000) || BACKOFF_MS * 2 ** (attempt - 1);
    const slept = await sleep(wait, signal);
    if (!slept) return { ok: false, kind: result.kind, detail: `${result.detail}; gave up when the export was cut short` };
  }
}

/** `retryAfterMs`, when set, says the attempt may be tried again: after that long, or with 0 after the backoff. */
export type Attempt = { ok: true } | { ok: false; kind: string; detail: string; retryAfterMs?: number };

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function sendOnce(request: Request, signal: AbortSignal): Promise<Attempt> {
  try {
    if (request.protocol === "grpc") return await (await import("./send-grpc.ts")).sendGrpc(request, signal);
    const response = await fetch(request.endpoint, {
      method: "POST",
      headers: { ...request.headers, "content-type": request.protocol === "http/json" ? "application/json" : "application/x-protobuf" },
      body: request.body,
      signal,
    });
    // The answer's body (a partial success, an error's text) is read and dropped: it frees the connection.
    const text = await response.text().catch(() => "");
    if (response.ok) return { ok: true };
    const retry = RETRYABLE.has(response.status);
    return {
      ok: false,
      kind: `HTTP ${response.status}`,
      detail: `the collector answered ${response.status}${text ? `: ${text.slice(0, 200).replace(/\s+/g, " ")}` : ""}`,
      ...(retry && { retryAfterMs: retryAfterMs(response.headers.get("retry-after")) }),
    };
  } catch (error) {
    return failed(error, signal);
  }
}

/** Retry-After in seconds or as an HTTP date, in ms from now; 0 (the backoff) when absent or unreadable. */
function retryAfterMs(header: string | null): number {
  if (!header?.trim()) return 0;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** A request that could not be made or finish: the collector down, unreachable, or too slow. */
export function failed(error: unknown, signal: AbortSignal): Attempt {
  if (signal.aborted) return { ok: false, kind: "timeout", detail: "the collector did not answer in time" };
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  return { ok: false, kind: code ?? "unreachable", detail: `cannot reach the collector: ${code ?? cause?.message ?? (error as Error).message}` };
}
