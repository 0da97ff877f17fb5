// OTLP over gRPC (OTEL_EXPORTER_OTLP_PROTOCOL=grpc) with node:http2 alone: one unary call to
// /opentelemetry.proto.collector.<signal>.v1.<Service>/Export, its message the request's protobuf
// bytes after the 5-byte gRPC prefix (not compressed, then its length); the answer's grpc-status
// (in the trailers, or in the headers of a trailers-only answer) says how it went; without one,
// the HTTP status does, as gRPC maps it.
import { connect, type ClientHttp2Session } from "node:http2";
import type { Attempt, Request } from "./send.ts";
import { failed } from "./send.ts";

const PATHS = {
  metrics: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
  logs: "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
  traces: "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
} as const;

/** gRPC statuses worth another try: RESOURCE_EXHAUSTED (8), UNAVAILABLE (14). */
const RETRYABLE = new Set([8, 14]);
/** HTTP statuses that gRPC reads as UNAVAILABLE when no grpc-status came (a proxy's answer). */
const HTTP_UNAVAILABLE = new Set([429, 502, 503, 504]);

/** One session per collector, kept while it serves (an export every few seconds). */
const sessions = new Map<string, ClientHttp2Session>();

function sessionFor(origin: string): ClientHttp2Session {
  const open = sessions.get(origin);
  if (open && !open.closed && !open.destroyed) return open;
  const session = connect(origin);
  session.unref();
  session.on("error", () => sessions.delete(origin));
  session.on("close", () => sessions.delete(origin));
  sessions.set(origin, session);
  return session;
}

export function sendGrpc(request: Request, signal: AbortSignal): Promise<Attempt> {
  const url = new URL(request.endpoint);
  const message = typeof request.body === "string" ? Buffer.from(request.body) : Buffer.from(request.body);
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return new Promise((resolve) => {
    let status: number | undefined;
    let grpcMessage = "";
    let httpStatus = 0;
    const session = sessionFor(url.origin);
    const stream = session.request({
      ":method": "POST",
      ":path": PATHS[request.signal],
      "content-type": "application/grpc",
      te: "trailers",
      ...lowerCased(request.headers),
    });
    const onAbort = () => stream.close();
    signal.addEventListener("abort", onAbort, { once: true });
    const read = (headers: Record<string, unknown>) => {
      if (headers["grpc-status"] !== undefined) status = Number(headers["grpc-status"]);
      if (headers["grpc-message"] !== undefined) grpcMessage = percentDecoded(String(headers["grpc-message"]));
    };
    stream.on("response", (headers) => {
      httpStatus = Number(headers[":status"]);
      read(headers);
    });
    stream.on("trailers", read);
    stream.on("data", () => {});
    stream.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      resolve(failed(error, signal));
    });
    stream.on("close", () => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) return resolve(failed(new Error("aborted"), signal));
      if (status === 0) return resolve({ ok: true });
      if (status === undefined) {
        const detail = `the collector answered without a grpc-status (HTTP ${httpStatus || "none"})`;
        return resolve({ ok: false, kind: `HTTP ${httpStatus || "?"}`, detail, ...(HTTP_UNAVAILABLE.has(httpStatus) && { retryAfterMs: 0 }) });
      }
      resolve({ ok: false, kind: `grpc-status ${status}`, detail: `the collector answered grpc-status ${status}${grpcMessage ? `: ${grpcMessage.slice(0, 200)}` : ""}`, ...(RETRYABLE.has(status) && { retryAfterMs: 0 }) });
    });
    stream.end(frame);
  });
}

/** grpc-message is percent-encoded, but a collector's may not be well: it is then taken as it came
 * (a throw here, in an http2 event, would end the process). */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** HTTP/2 takes header names in lower case only. */
function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
