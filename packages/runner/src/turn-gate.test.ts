import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, connect, type Socket } from "node:net";
import { createTurnGate } from "./turn-gate.ts";

test("waiters resume in arrival order, each in a turn of its own, with I/O served between them", async (t) => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection") as Promise<[Socket]>;
  const client = connect((server.address() as { port: number }).port, "127.0.0.1");
  await once(client, "connect");
  const [peer] = await accepted;
  t.after(() => {
    client.destroy();
    peer.destroy();
    server.close();
  });
  const order: string[] = [];
  peer.on("data", () => order.push("io"));

  const wait = createTurnGate();
  const waiters = Array.from({ length: 4 }, (_, i) =>
    wait().then(() => {
      order.push(`start ${i}`);
      // The first start's write is in the peer's socket at once (loopback): its data event is
      // served before the next start, not after all of them.
      if (i === 0) client.write("x");
    }),
  );
  await Promise.all(waiters);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(order, ["start 0", "io", "start 1", "start 2", "start 3"]);
});
