// The Open Harness files read while a run changes them: the answer is the Content-Length it promised,
// never more (bytes past it would be read as the next answer on the connection), and a file cut
// short meanwhile ends the connection rather than leaving the client waiting for the rest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { appendFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const MiB = 1024 * 1024;

/** GET `path` over a socket of its own: once the first bytes come, `meanwhile` is done before the
 * rest is read. What came (its Content-Length, the bytes of its body), and whether it ended cleanly
 * or was cut (or was still open with nothing more coming for `waitMs`: a busy machine may take a
 * while to send the rest, which is not waiting). */
function getWhile(url: string, path: string, keepAlive: boolean, meanwhile: () => Promise<void>, waitMs = 10_000): Promise<{ length: number; body: number; end: "closed" | "waiting" }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let started = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (end: "closed" | "waiting") => {
      clearTimeout(timer);
      socket.destroy();
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(all.subarray(0, split).toString())?.[1]);
      resolve({ length, body: all.length - split - 4, end });
    };
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nx-harness-user: alice\r\nConnection: ${keepAlive ? "keep-alive" : "close"}\r\n\r\n`);
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      if (timer) timer.refresh();
      if (started) return;
      started = true;
      socket.pause();
      meanwhile().then(() => {
        socket.resume();
        timer = setTimeout(() => done("waiting"), waitMs);
      }, reject);
    });
    socket.on("close", () => done("closed"));
    socket.on("error", () => {});
  });
}

test("a file that grows or is cut short while it is read answers no more than its Content-Length, and a short one ends the connection", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const file = join(h.workspace("alice", session.id), "growing.bin");
    await api(`${V1}/files/growing.bin?session_id=${session.id}`, { method: "PUT", body: "" });
    await writeFile(file, Buffer.alloc(16 * MiB, 1));
    const path = `${V1}/files/growing.bin?session_id=${session.id}`;
    const grown = await getWhile(h.server.url, path, false, () => appendFile(file, Buffer.alloc(4 * MiB, 2)));
    assert.equal(grown.length, 16 * MiB);
    assert.equal(grown.body, 16 * MiB, "the bytes it promised, no more");

    await writeFile(file, Buffer.alloc(16 * MiB, 1));
    const cut = await getWhile(h.server.url, path, true, () => truncate(file, 1 * MiB));
    assert.equal(cut.length, 16 * MiB);
    assert.ok(cut.body < 16 * MiB);
    assert.equal(cut.end, "closed", "the client is not left waiting for bytes that will not come");
  } finally {
    await h.close();
  }
});
