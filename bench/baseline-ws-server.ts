// Baseline for the memory benchmark: a bare `ws` server that holds connections and does nothing
// else. Prints its URL on stdout.
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
wss.on("connection", (socket) => socket.send(JSON.stringify({ type: "state", state: { status: "idle", messages: [] }, seq: 0 })));
wss.on("listening", () => {
  const address = wss.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
