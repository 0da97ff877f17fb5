// A port for a test to find closed, or to hand a server that listens on it next.
import { createServer } from "node:net";

/** A loopback port nobody listens on (now): one the system gave to a listener, let go. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
