// Server memory per idle connected session, against a bare `ws` server holding as many connections.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarnessServer } from "@harness/test-utils";
import { rssKiB, sleep } from "./lib.ts";

async function openIdle(url: string, count: number, prefix: string): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let batch = 0; batch < count; batch += 100) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(100, count - batch) }, (_, i) => {
        const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws?userId=idle&sessionId=${prefix}-${batch + i}`, { perMessageDeflate: false });
        return new Promise<WebSocket>((resolve, reject) => {
          ws.once("message", () => resolve(ws));
          ws.once("error", reject);
        });
      }),
    );
    sockets.push(...opened);
  }
  return sockets;
}

/** RSS growth per connection after the process settles. */
async function perConnection(url: string, pid: number, count: number, prefix: string): Promise<number> {
  const warm = await openIdle(url, 20, `${prefix}-warm`);
  await sleep(1_000);
  const before = rssKiB(pid);
  const sockets = await openIdle(url, count, prefix);
  await sleep(2_000);
  const afterKiB = rssKiB(pid);
  for (const ws of [...warm, ...sockets]) ws.close();
  return (afterKiB - before) / count;
}

/** Both processes measured run with a young generation of 1 MB. With the default (up to 32 MB),
 * the garbage left by opening 1,000 connections stays there until the next collection, which an
 * idle server may not make for minutes: readings of the same build moved between 28 and 48 KiB
 * per session. A small young generation collects it as it is made, so what is read is what the
 * sessions keep. */
const SMALL_YOUNG_GENERATION = { NODE_OPTIONS: "--max-semi-space-size=1" };

/** Measured on a server process of its own: one that has already streamed has a grown heap that
 * new connections would reuse, and the growth per session would read too low. */
export async function measureIdleMemory(env: Record<string, string>, sessions: number) {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-bench-mem-"));
  const server = await startHarnessServer({ dataDir, env: { ...env, ...SMALL_YOUNG_GENERATION } });
  let harnessKiB: number;
  try {
    harnessKiB = await perConnection(server.url, server.child.pid!, sessions, `mem-${Date.now()}`);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const script = fileURLToPath(new URL("./baseline-ws-server.ts", import.meta.url));
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...SMALL_YOUNG_GENERATION } });
  const url = await new Promise<string>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      const m = /listening on (http:\/\/\S+)/.exec(s);
      if (m) resolve(m[1]);
    });
  });
  const baselineKiB = await perConnection(url, child.pid!, sessions, "base");
  child.kill();
  return { sessions, harnessKiB, baselineKiB };
}
