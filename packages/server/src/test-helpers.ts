// Shared by this package's tests.
import { request } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import WebSocket from "ws";
import { waitFor as sharedWaitFor } from "@harness/test-utils";
import type { ServerMessage, SessionEndReason } from "@harness/protocol";
import { createFakeRunner, type FakeRunner } from "@harness/session";
import type { ServerOptions } from "./config.ts";
import type { RunnerFactory } from "./registry.ts";
import { startServer, type HarnessServer } from "./server.ts";

/** A temp directory and its removal. */
export async function tempDir(prefix = "harness-server-"): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A temp directory removed after the test `t`. */
export async function testDir(t: { after(fn: () => unknown): void }, prefix?: string): Promise<string> {
  const dir = await tempDir(prefix);
  t.after(() => dir.remove());
  return dir.path;
}

/** Another connection holding the file's write lock, as a backup tool would, until released. */
export function lockFile(path: string): { release(): void } {
  const holder = new DatabaseSync(path);
  holder.exec("BEGIN EXCLUSIVE");
  return {
    release() {
      holder.exec("ROLLBACK");
      holder.close();
    },
  };
}

/** A runner factory handing out hand-driven fake runners, one per session, and counting stops. */
/** `ended`: the reason each stop gave (what the session's SessionEnd hooks would be told). */
export function fakeRunners(): { factory: RunnerFactory; runners: Map<string, FakeRunner & { stops: number; ended: (SessionEndReason | undefined)[] }> } {
  const runners = new Map<string, FakeRunner & { stops: number; ended: (SessionEndReason | undefined)[] }>();
  const factory: RunnerFactory = ({ userId, sessionId }) => {
    const runner = Object.assign(createFakeRunner(), { stops: 0, ended: [] as (SessionEndReason | undefined)[] });
    runners.set(`${userId}/${sessionId}`, runner);
    return Object.assign(runner, {
      async stop(reason?: SessionEndReason) {
        runner.stops++;
        runner.ended.push(reason);
      },
    });
  };
  return { factory, runners };
}

/** Attempts a WebSocket upgrade and reports the HTTP answer when it is refused (101 when accepted). */
export function upgradeAnswer(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
        ...headers,
      },
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: "" });
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (s: string) => (body += s));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

export function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  return sharedWaitFor(condition, what, { timeoutMs, intervalMs: 10 }).then(() => undefined);
}

/** A raw WebSocket client that records every frame from the first one on. */
export async function frameRecorder(url: string): Promise<{ frames: ServerMessage[]; close(): Promise<void> }> {
  const socket = new WebSocket(url.replace(/^http/, "ws"), { perMessageDeflate: false });
  const frames: ServerMessage[] = [];
  socket.on("message", (data) => frames.push(JSON.parse(String(data)) as ServerMessage));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return {
    frames,
    close: () =>
      new Promise<void>((resolve) => {
        socket.once("close", () => resolve());
        socket.close();
      }),
  };
}

/** A server on a temp data dir with fake runners; closed and removed after `body`. */
export async function withFakeServer(
  options: Omit<ServerOptions, "runnerFactory">,
  body: (server: HarnessServer, runners: ReturnType<typeof fakeRunners>, dataDir: string) => Promise<void>,
): Promise<void> {
  const dir = await tempDir();
  const runners = fakeRunners();
  const server = await startServer({ port: 0, dataDir: dir.path, log: () => {}, env: {}, ...options, runnerFactory: runners.factory });
  try {
    await body(server, runners, dir.path);
  } finally {
    await server.close();
    await dir.remove();
  }
}

/** A JSON request to the server: its status and parsed body (typed loosely: tests read into it). */
export async function call(
  server: HarnessServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
