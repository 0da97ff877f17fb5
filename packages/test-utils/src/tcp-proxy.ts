// A TCP proxy on loopback that can play a network gone silent: after blackhole(), nothing more is
// forwarded either way and nothing is closed, as when a server's machine is powered off or a NAT
// mapping is dropped. Connections made meanwhile are accepted and held, never forwarded, until
// resume(), after which new connections are forwarded again (the held and cut-off ones stay dead).
import { connect, createServer, type Socket } from "node:net";

export type TcpProxy = {
  /** http://127.0.0.1:<port> */
  url: string;
  blackhole(): void;
  resume(): void;
  close(): Promise<void>;
};

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let silent = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  };
  /** Each connection's switch: stop forwarding for good, without closing either side. */
  const cutters = new Set<() => void>();
  const server = createServer((client) => {
    track(client);
    if (silent) return client.pause();
    const upstream = connect(target.port, target.host ?? "127.0.0.1");
    track(upstream);
    let cut = false;
    const forward = (from: Socket, to: Socket) => {
      from.on("data", (data) => void (cut || to.write(data)));
      from.on("end", () => void (cut || to.end()));
      from.on("close", () => void (cut || to.destroy()));
    };
    forward(client, upstream);
    forward(upstream, client);
    cutters.add(() => (cut = true));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    blackhole() {
      silent = true;
      for (const cutOff of cutters) cutOff();
      cutters.clear();
    },
    resume() {
      silent = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
