import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Writable } from "node:stream";
import { createEventLog, type EventLog } from "../runs/event-log.ts";
import { streamLog } from "./sse-response.ts";

type Chunk = { chunk: Buffer | string; encoding: string };

/** Records each write the socket hands to the operating system (a Writable's `_write` or `_writev`
 * call), as text. */
function recordWrites(socket: Socket): string[] {
  const writes: string[] = [];
  const text = (chunks: Chunk[]) => chunks.map(({ chunk, encoding }) => (typeof chunk === "string" ? Buffer.from(chunk, encoding as BufferEncoding) : chunk).toString()).join("");
  const target = socket as unknown as Writable & { _writev?: Writable["_writev"] };
  const write = target._write.bind(target);
  target._write = (chunk, encoding, callback) => {
    writes.push(text([{ chunk, encoding }]));
    write(chunk, encoding, callback);
  };
  const writev = target._writev?.bind(target);
  if (writev) {
    target._writev = (chunks, callback) => {
      writes.push(text(chunks));
      writev(chunks, callback);
    };
  }
  return writes;
}

/** Posts one request to a server that answers it with `answer` once the body is read (as the
 * runner does); resolves with the writes of the response, after the response ended or `settleMs`. */
async function writesOf(answer: (res: ServerResponse) => void, settleMs = 1_000): Promise<string[]> {
  let writes: string[] = [];
  const server = createServer((req, res) => {
    writes = recordWrites(res.socket!);
    req.resume().on("end", () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), settleMs);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}", signal: controller.signal });
      await res.text();
    } catch {
      // Still streaming when the time was up.
    }
    clearTimeout(timer);
    return writes;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const started = (log: EventLog) => log.append({ type: "run.started", requestId: "r" });

test("a query's response head leaves in the same write as the event appended in its tick; the end with the last event", async () => {
  const writes = await writesOf((res) => {
    const log = createEventLog();
    streamLog(res, log, []);
    started(log);
    setTimeout(() => {
      log.append({ type: "assistant.delta", text: "later" });
      setTimeout(() => {
        log.append({ type: "run.error", message: "stopped" });
        log.end();
      }, 20);
    }, 20);
  });
  assert.equal(writes.length, 3);
  assert.match(writes[0], /^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: text\/event-stream[\s\S]*\r\n\r\n[0-9a-f]+\r\nid: 1\nevent: run\.started\n/);
  assert.match(writes[1], /^[0-9a-f]+\r\nid: 2\n[\s\S]*"text":"later"/);
  assert.match(writes[2], /"message":"stopped"[\s\S]*\r\n0\r\n\r\n$/);
});

test("with nothing to send yet, the head still goes out at once", async () => {
  let log: EventLog | undefined;
  const writes = await writesOf((res) => {
    log = createEventLog();
    streamLog(res, log, []);
  }, 200);
  assert.equal(writes.length, 1);
  assert.match(writes[0], /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/);
  log?.end();
});

test("a replay leaves with the head in one write", async () => {
  const writes = await writesOf((res) => {
    const log = createEventLog();
    started(log);
    log.append({ type: "assistant.delta", text: "kept" });
    const replay = log.replay(0);
    assert.ok(replay.ok);
    streamLog(res, log, replay.frames);
    log.end();
  });
  assert.equal(writes.length, 1);
  assert.match(writes[0], /^HTTP\/1\.1 200 OK[\s\S]*run\.started[\s\S]*"text":"kept"[\s\S]*\r\n0\r\n\r\n$/);
});
