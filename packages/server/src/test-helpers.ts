// Shared by this package's tests.
import { request } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import type { ServerMessage } from "@harness/protocol";
import { createFakeRunner, type FakeRunner } from "@harness/session";
import type { RunnerFactory } from "./registry.ts";

/** A temp directory and its removal. */
export async function tempDir(prefix = "harness-server-"): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A runner factory handing out hand-driven fake runners, one per session, and counting stops. */
export function fakeRunners(): { factory: RunnerFactory; runners: Map<string, FakeRunner & { stops: number }> } {
  const runners = new Map<string, FakeRunner & { stops: number }>();
  const factory: RunnerFactory = ({ userId, sessionId }) => {
    const runner = Object.assign(createFakeRunner(), { stops: 0 });
    runners.set(`${userId}/${sessionId}`, runner);
    return Object.assign(runner, {
      async stop() {
        runner.stops++;
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

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
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
