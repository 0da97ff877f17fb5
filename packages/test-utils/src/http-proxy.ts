// A forward HTTP proxy on loopback, as corporate networks run one: absolute-URI requests (GET
// http://host/path) are forwarded, CONNECT host:port opens a tunnel, and every request that came
// through is recorded. Host names ending in ".test" are reached on 127.0.0.1, so a URL such as
// http://model.test:PORT works only through the proxy (nothing else resolves it).
import { connect } from "node:net";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ProxiedRequest = {
  /** "CONNECT" for a tunnel, else the forwarded request's method. */
  method: string;
  /** host:port for a tunnel, the absolute URL otherwise. */
  target: string;
  /** The Proxy-Authorization header the client sent, if any. */
  authorization?: string;
};

export type HttpProxy = {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  seen: ProxiedRequest[];
  close(): Promise<void>;
};

const hostOf = (name: string) => (name.endsWith(".test") ? "127.0.0.1" : name);

export async function startHttpProxy(): Promise<HttpProxy> {
  const seen: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const record = (req: IncomingMessage, target: string) => {
    const authorization = req.headers["proxy-authorization"];
    seen.push({ method: req.method ?? "", target, ...(authorization !== undefined && { authorization }) });
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    record(req, req.url ?? "");
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("a proxy takes absolute URLs");
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const upstream = request({ host: hostOf(target.hostname), port: target.port || 80, path: target.pathname + target.search, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    record(req, req.url ?? "");
    const [host = "", port = "443"] = (req.url ?? "").split(/:(?=\d+$)/);
    const upstream = connect(Number(port), hostOf(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
