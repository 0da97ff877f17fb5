// Shared by this package's tests.
import type { HarnessState, ServerMessage } from "@harness/protocol";
import { HarnessClient, type WebSocketLike } from "./client.ts";

export type FakeSocket = WebSocketLike & { url: string; sent: string[]; open(): void; serve(frame: ServerMessage): void; drop(code?: number): void };

/** A scripted server side: every socket the client opens is recorded with its URL and frames. */
export function fakeServer(autoOpen = true) {
  const sockets: FakeSocket[] = [];
  const factory = (url: string) => {
    const socket = {
      url,
      sent: [] as string[],
      readyState: 0,
      onopen: null as WebSocketLike["onopen"],
      onmessage: null as WebSocketLike["onmessage"],
      onclose: null as WebSocketLike["onclose"],
      onerror: null as WebSocketLike["onerror"],
      send(data: string) { this.sent.push(data); },
      close() { this.drop(); },
      open() {
        // A socket closed while it was connecting never opens.
        if (this.readyState === 3) return;
        this.readyState = 1;
        this.onopen?.({});
      },
      serve(frame: ServerMessage) { this.onmessage?.({ data: JSON.stringify(frame) }); },
      drop(code = 1006) {
        if (this.readyState === 3) return;
        this.readyState = 3;
        this.onclose?.({ code, reason: "" });
      },
    };
    sockets.push(socket);
    if (autoOpen) queueMicrotask(() => socket.open());
    return socket;
  };
  return { sockets, factory };
}

export const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** A client connected to a fake server whose first socket served the state `initial` (seq 1). */
export async function connectedClient(initial: HarnessState) {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://h", userId: "u", sessionId: "s", webSocket: server.factory, reconnect: { minDelayMs: 1 } });
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state: initial, seq: 1 });
  await connecting;
  return { socket: server.sockets[0], client };
}
