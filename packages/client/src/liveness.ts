// Telling a dead connection from a quiet one. A server gone without closing (a laptop asleep, a NAT
// mapping dropped, its machine powered off) leaves a socket that never closes. The server pings
// every socket (every 30 s by default), so where the pings can be seen, a connection on which
// neither a frame nor a ping arrived for the silence limit is dead. Browsers answer pings without
// showing them; there a timer would cut every quiet connection, so the connection is checked
// instead when the page is shown again (a laptop waking up) and when the network comes back.
// Browser-safe: Node's modules are reached only through `process.getBuiltinModule`, when present.

/** What a socket may offer besides the standard WebSocket API to show the server's pings. */
export type PingEmitter = {
  /** The `ws` package's socket (or any EventEmitter-style one) emits "ping". */
  on?(event: "ping", listener: () => void): unknown;
  off?(event: "ping", listener: () => void): unknown;
};

/** Calls `heard` on each ping `socket` receives; returns the unsubscribe, or undefined when its
 * pings cannot be seen. */
function watchPings(socket: PingEmitter, heard: () => void): (() => void) | undefined {
  if (typeof socket.on === "function") {
    socket.on("ping", heard);
    return () => socket.off?.("ping", heard);
  }
  // Node's own WebSocket (undici's) shows them only on a diagnostics channel, with the socket.
  const channels = undiciChannels();
  if (!channels || typeof WebSocket !== "function" || !(socket instanceof WebSocket)) return undefined;
  const onPing = (message: unknown) => {
    if ((message as { websocket?: unknown } | undefined)?.websocket === socket) heard();
  };
  channels.subscribe(PING_CHANNEL, onPing);
  return () => channels.unsubscribe(PING_CHANNEL, onPing);
}

const PING_CHANNEL = "undici:websocket:ping";
type Channels = { subscribe(name: string, fn: (message: unknown) => void): void; unsubscribe(name: string, fn: (message: unknown) => void): unknown };

/** node:diagnostics_channel, on a runtime whose global WebSocket is undici's (Node's). */
function undiciChannels(): Channels | undefined {
  const process = (globalThis as { process?: { versions?: { undici?: string }; getBuiltinModule?(id: string): unknown } }).process;
  if (!process?.versions?.undici || typeof process.getBuiltinModule !== "function") return undefined;
  return process.getBuiltinModule("node:diagnostics_channel") as Channels | undefined;
}

type WakeTarget = {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
};

const OPEN = 1;

/** Watches one socket. `dead(why)` is called once when the connection is taken for dead: with
 * pings visible, when nothing arrived for `limitMs` (a handshake included); without, when the page
 * is shown again after nothing arrived for `limitMs`, or when the network comes back, while the
 * socket is open. A handshake under way is left to end on its own there: it is being made over
 * the network as it is now, and cutting it would fail a connect() that might have worked. `limitMs`
 * 0 watches nothing. */
export function watchLiveness(
  socket: PingEmitter & { readonly readyState: number }, limitMs: number, dead: (why: string) => void,
): { heard(): void; stop(): void } {
  let last = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stops: (() => void)[] = [];
  const stop = () => {
    clearTimeout(timer);
    for (const s of stops.splice(0)) s();
  };
  const die = (why: string) => {
    stop();
    dead(why);
  };
  const heard = () => void (last = Date.now());
  if (limitMs === 0) return { heard, stop };

  const unwatchPings = watchPings(socket, heard);
  if (unwatchPings) {
    stops.push(unwatchPings);
    // Re-armed for what is left rather than on every frame: a busy connection costs no timers.
    const check = () => {
      const left = last + limitMs - Date.now();
      if (left <= 0) return die(`no frame or ping arrived for ${limitMs} ms`);
      timer = setTimeout(check, left);
    };
    timer = setTimeout(check, limitMs);
    return { heard, stop };
  }

  const page = globalThis as Partial<WakeTarget> & { document?: Partial<WakeTarget> & { visibilityState?: string } };
  const document = page.document;
  if (typeof document?.addEventListener === "function" && typeof document.removeEventListener === "function") {
    const onVisible = () => {
      if (socket.readyState === OPEN && document.visibilityState === "visible" && Date.now() - last >= limitMs) {
        die(`the page was shown again and nothing had arrived for ${limitMs} ms`);
      }
    };
    document.addEventListener("visibilitychange", onVisible);
    stops.push(() => document.removeEventListener!("visibilitychange", onVisible));
  }
  if (typeof page.addEventListener === "function" && typeof page.removeEventListener === "function") {
    // A connection made before the network went away may be cut under its old address: asking
    // again costs one handshake, and `since` brings only what was missed.
    const onOnline = () => {
      if (socket.readyState === OPEN) die("the network came back");
    };
    page.addEventListener("online", onOnline);
    stops.push(() => page.removeEventListener!("online", onOnline));
  }
  return { heard, stop };
}
