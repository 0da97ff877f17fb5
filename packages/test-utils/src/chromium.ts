// Headless Chromium for end-to-end tests, driven over the Chrome DevTools Protocol (CDP) with Node's
// own WebSocket: open a tab, navigate it, evaluate an expression in the page. Debian's `chromium`
// (scripts/ensure-test-tools.sh installs it); without it, startChromium fails naming what is missing.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

export type ChromiumPage = {
  /** Loads `url` and waits for its load event; rejects when the page cannot be loaded. */
  navigate(url: string): Promise<void>;
  /** The value of `expression` in the page (JSON-like values only), awaited when it is a promise;
   * rejects with the page's exception when it throws. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** Any other CDP command, sent to this page (e.g. Network.emulateNetworkConditions). */
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** What the page logged with console.* and its uncaught exceptions, one line each. */
  console(): string[];
  close(): Promise<void>;
};

export type Chromium = {
  newPage(): Promise<ChromiumPage>;
  /** Everything the browser printed on stderr so far. */
  output(): string;
  close(): Promise<void>;
};

/** The Chromium program: $HARNESS_CHROMIUM, else `chromium` (Debian) or `chromium-browser` on PATH. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HARNESS_CHROMIUM) return env.HARNESS_CHROMIUM;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/**
 * Starts headless Chromium with a fresh profile. `hostRules` is Chromium's --host-resolver-rules
 * (e.g. "MAP page.test 127.0.0.1"), for pages on a name other than localhost.
 */
export async function startChromium(options: { hostRules?: string; timeoutMs?: number } = {}): Promise<Chromium> {
  const program = findChromium();
  if (!program) {
    throw new Error("Chromium is not installed: the browser tests need Debian's `chromium` package (scripts/ensure-test-tools.sh installs it with apt-get; or set HARNESS_CHROMIUM to a Chromium program)");
  }
  const profile = await mkdtemp(join(tmpdir(), "harness-chromium-"));
  // Headless, with a profile of its own; no sandbox as root (Chromium refuses to start otherwise);
  // none of its own traffic (updates, sync, safe browsing), which a machine without a network
  // refuses over and over.
  const args = [
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    "--remote-debugging-port=0",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
    ...(options.hostRules ? [`--host-resolver-rules=${options.hostRules}`] : []),
    "about:blank",
  ];
  const child = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (output += s));
  // A spawn that failed (no such program) has an "error" and no "exit". Not "close": Chromium's
  // helper processes may hold its stderr open after it exits.
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    await rm(profile, { recursive: true, force: true });
  };
  let cdp: Cdp;
  try {
    cdp = await Cdp.open(await devToolsUrl(child, program, () => output, options.timeoutMs ?? 20_000));
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    newPage: () => openPage(cdp),
    output: () => output,
    async close() {
      // Browser.close lets Chromium exit by itself; it is killed if it does not soon.
      await Promise.race([cdp.send("Browser.close").catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2_000))]);
      cdp.close();
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(timer);
      await cleanup();
    },
  };
}

/** The browser's DevTools WebSocket URL, which Chromium prints on stderr once it listens. */
function devToolsUrl(child: ChildProcess, program: string, output: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`Chromium did not print its DevTools URL within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    const onData = () => {
      const url = /DevTools listening on (ws:\/\/\S+)/.exec(output())?.[1];
      if (url) done(undefined, url);
    };
    const onExit = (code: number | null) => done(new Error(`Chromium exited (${code}) before it listened:\n${output()}`));
    const onError = (error: Error) => done(new Error(`could not start Chromium (${program}): ${error.message}`));
    const done = (error?: Error, url?: string) => {
      clearTimeout(timer);
      child.stderr!.off("data", onData);
      child.off("exit", onExit);
      child.off("error", onError);
      if (error) reject(error);
      else resolve(url!);
    };
    child.stderr!.on("data", onData);
    child.once("exit", onExit);
    child.once("error", onError);
  });
}

type CdpEvent = { method: string; params: Record<string, unknown>; sessionId?: string };

/** One CDP connection to the browser. Pages are attached in "flat" mode: their commands and events
 * travel on this same socket, told apart by sessionId. */
class Cdp {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void; method: string }>();
  private readonly listeners = new Set<(event: CdpEvent) => void>();

  private readonly socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.onmessage = (message) => {
      const frame = JSON.parse(String(message.data)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } } & CdpEvent;
      if (frame.id === undefined) {
        for (const listener of this.listeners) listener(frame);
        return;
      }
      const call = this.pending.get(frame.id);
      this.pending.delete(frame.id);
      if (frame.error) call?.reject(new Error(`${call.method}: ${frame.error.message}`));
      else call?.resolve(frame.result ?? {});
    };
    socket.onclose = () => {
      for (const call of this.pending.values()) call.reject(new Error(`${call.method}: the DevTools connection closed`));
      this.pending.clear();
    };
  }

  static open(url: string): Promise<Cdp> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.onopen = () => resolve(new Cdp(socket));
      socket.onerror = () => reject(new Error(`could not open Chromium's DevTools at ${url}`));
    });
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  on(listener: (event: CdpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.socket.close();
  }
}

async function openPage(cdp: Cdp): Promise<ChromiumPage> {
  const { targetId } = (await cdp.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
  const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
  const lines: string[] = [];
  let loaded: (() => void) | undefined;
  const off = cdp.on((event) => {
    if (event.sessionId !== sessionId) return;
    if (event.method === "Page.loadEventFired") loaded?.();
    if (event.method === "Runtime.consoleAPICalled") {
      const args = event.params.args as { value?: unknown; description?: string }[];
      lines.push(`${event.params.type}: ${args.map((a) => (a.value !== undefined ? String(a.value) : a.description)).join(" ")}`);
    }
    if (event.method === "Runtime.exceptionThrown") lines.push(`uncaught: ${exceptionText(event.params.exceptionDetails)}`);
  });
  await cdp.send("Page.enable", {}, sessionId);
  await cdp.send("Runtime.enable", {}, sessionId);
  return {
    async navigate(url) {
      const load = new Promise<void>((resolve) => (loaded = resolve));
      const { errorText } = (await cdp.send("Page.navigate", { url }, sessionId)) as { errorText?: string };
      if (errorText) throw new Error(`could not load ${url}: ${errorText}`);
      await load;
    },
    async evaluate<T>(expression: string) {
      const answer = (await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId)) as {
        result: { value?: unknown };
        exceptionDetails?: unknown;
      };
      if (answer.exceptionDetails) throw new Error(`the page threw: ${exceptionText(answer.exceptionDetails)}`);
      return answer.result.value as T;
    },
    send: (method, params) => cdp.send(method, params, sessionId),
    console: () => [...lines],
    async close() {
      off();
      await cdp.send("Target.closeTarget", { targetId }).catch(() => {});
    },
  };
}

/** An exception's own text (its stack or message), from CDP's exceptionDetails. */
function exceptionText(details: unknown): string {
  const d = details as { text?: string; exception?: { description?: string; value?: unknown } };
  return d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : (d.text ?? "an exception"));
}
