// A fake OpenTelemetry collector: an OTLP/HTTP server on 127.0.0.1 recording what is sent to
// /v1/metrics, /v1/logs and /v1/traces (http/json and http/protobuf, both read into OTLP/JSON's shape), and,
// with `grpc`, an OTLP/gRPC endpoint over cleartext HTTP/2 (h2c) on a port of its own. Replies are
// scripted in order (a refusal, a 503, a wait, garbage); unscripted requests get an empty success.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, constants as h2, type Http2Server, type Http2Session, type ServerHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { decodeLogsRequest, decodeMetricsRequest, decodeTracesRequest, eventRecordsOf, metricPointsOf, spanRecordsOf, type EventRecord, type MetricPoint, type OtlpLogsJson, type OtlpMetricsJson, type OtlpTracesJson, type SpanRecord } from "./otlp-decode.ts";

export type OtlpProtocolSeen = "http/json" | "http/protobuf" | "grpc";

export type OtlpRequest = {
  signal: "metrics" | "logs" | "traces";
  protocol: OtlpProtocolSeen;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  metrics?: OtlpMetricsJson;
  logs?: OtlpLogsJson;
  traces?: OtlpTracesJson;
  at: number;
};

/** How the collector answers one request: an HTTP status (over gRPC, one other than 200 comes
 * without a grpc-status, as from a proxy in front), a gRPC status with `grpcStatus` (its
 * grpc-message `grpcMessage` as it is, percent-encoded or not), a body as it is (garbage), after
 * `delayMs`; `hang`: never. */
export type OtlpReply = { status?: number; grpcStatus?: number; grpcMessage?: string; body?: string; delayMs?: number; hang?: boolean; headers?: Record<string, string> };

export type FakeOtlpCollector = {
  /** http://127.0.0.1:PORT, OTEL_EXPORTER_OTLP_ENDPOINT for the http protocols. */
  url: string;
  /** http://127.0.0.1:PORT of the gRPC endpoint (with `grpc`). */
  grpcUrl?: string;
  requests: OtlpRequest[];
  /** Replies for the next requests, in order. */
  push(...replies: OtlpReply[]): void;
  points(): MetricPoint[];
  events(): EventRecord[];
  spans(): SpanRecord[];
  waitFor<T>(find: () => T | undefined | false, timeoutMs?: number, what?: string): Promise<T>;
  close(): Promise<void>;
};

const GRPC_PATHS: Record<string, OtlpRequest["signal"] | undefined> = {
  "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export": "metrics",
  "/opentelemetry.proto.collector.logs.v1.LogsService/Export": "logs",
  "/opentelemetry.proto.collector.trace.v1.TraceService/Export": "traces",
};

export async function startFakeOtlpCollector(options: { grpc?: boolean } = {}): Promise<FakeOtlpCollector> {
  const requests: OtlpRequest[] = [];
  const replies: OtlpReply[] = [];
  const sockets = new Set<Socket>();
  const held: (() => void)[] = [];
  const sessions = new Set<Http2Session>();

  const record = (signal: OtlpRequest["signal"], protocol: OtlpProtocolSeen, path: string, headers: OtlpRequest["headers"], body: Buffer) => {
    const at = Date.now();
    const json = protocol === "http/json";
    const parsed = json ? JSON.parse(body.toString("utf8")) : undefined;
    const decode = { metrics: decodeMetricsRequest, logs: decodeLogsRequest, traces: decodeTracesRequest }[signal];
    requests.push({ signal, protocol, path, headers, at, [signal]: json ? parsed : decode(body) });
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? "/").split("?")[0];
    const signal = path === "/v1/metrics" ? "metrics" : path === "/v1/logs" ? "logs" : path === "/v1/traces" ? "traces" : undefined;
    const type = String(req.headers["content-type"] ?? "");
    const reply = replies.shift() ?? {};
    if (signal && req.method === "POST") {
      try {
        record(signal, type.startsWith("application/json") ? "http/json" : "http/protobuf", path, req.headers, Buffer.concat(chunks));
      } catch (error) {
        res.writeHead(400, { "content-type": "text/plain" }).end(`cannot read the request: ${(error as Error).message}`);
        return;
      }
    }
    if (reply.hang) return void held.push(() => res.destroy());
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (!signal) return void res.writeHead(404).end();
    res.writeHead(reply.status ?? 200, { "content-type": reply.body === undefined ? type || "application/json" : "text/plain", ...reply.headers });
    res.end(reply.body ?? (type.startsWith("application/json") ? "{}" : ""));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let grpc: Http2Server | undefined;
  let grpcUrl: string | undefined;
  if (options.grpc) {
    grpc = createHttp2Server();
    grpc.on("session", (session: Http2Session) => {
      sessions.add(session);
      session.on("close", () => sessions.delete(session));
    });
    grpc.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        const path = String(headers[h2.HTTP2_HEADER_PATH] ?? "");
        const signal = GRPC_PATHS[path];
        const reply = replies.shift() ?? {};
        const body = Buffer.concat(chunks);
        if (signal && body.length >= 5 && body[0] === 0 && body.readUInt32BE(1) === body.length - 5) {
          record(signal, "grpc", path, headers as OtlpRequest["headers"], body.subarray(5));
        }
        if (reply.hang) return void held.push(() => stream.close());
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (stream.destroyed) return;
        if (reply.status !== undefined && reply.status !== 200) return void stream.respond({ ":status": reply.status, "content-type": "text/plain" }, { endStream: true });
        stream.respond({ ":status": reply.status ?? 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(signal ? (reply.grpcStatus ?? 0) : 12), ...(reply.grpcStatus && { "grpc-message": reply.grpcMessage ?? "refused by the fake collector" }) }));
        stream.end(reply.body !== undefined ? Buffer.from(reply.body) : Buffer.from([0, 0, 0, 0, 0]));
      });
    });
    await new Promise<void>((resolve) => grpc!.listen(0, "127.0.0.1", resolve));
    grpcUrl = `http://127.0.0.1:${(grpc.address() as AddressInfo).port}`;
  }

  return {
    url,
    ...(grpcUrl && { grpcUrl }),
    requests,
    push: (...more) => void replies.push(...more),
    points: () => requests.flatMap((r) => (r.metrics ? metricPointsOf(r.metrics) : [])),
    events: () => requests.flatMap((r) => (r.logs ? eventRecordsOf(r.logs) : [])),
    spans: () => requests.flatMap((r) => (r.traces ? spanRecordsOf(r.traces) : [])),
    async waitFor(find, timeoutMs = 10_000, what = "the collector to receive it") {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = find();
        if (found) return found;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; received ${requests.length} request(s)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const release of held) release();
      for (const socket of sockets) socket.destroy();
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (grpc) await new Promise<void>((resolve) => grpc!.close(() => resolve()));
    },
  };
}
