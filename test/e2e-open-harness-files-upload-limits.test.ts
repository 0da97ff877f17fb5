// The Open Harness uploads against bodies made to cost the server: a form of very many tiny parts,
// or parts with huge headers, is refused before it is parsed, without holding up other requests;
// and large uploads at once are taken only as far as the server's memory for them goes.
import { test } from "node:test";
import { connect, type Socket } from "node:net";
import assert from "node:assert/strict";
import { waitFor } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const TYPE = "multipart/form-data; boundary=abc";
const part = (headers: string, content: string) => `--abc\r\n${headers}\r\n\r\n${content}\r\n`;
const post = (base: string, path: string, body: string) => fetch(`${base}${V1}${path}`, { method: "POST", body, headers: { "x-harness-user": "alice", "content-type": TYPE } });

test("a form of very many tiny parts, or a part with huge headers, is refused at once", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const field = part('Content-Disposition: form-data; name="session_id"', session.id);
    const tiny = Array.from({ length: 100_000 }, (_, i) => part(`Content-Disposition: form-data; name="files"; filename="f${i}"`, "x")).join("");
    let started = Date.now();
    let response = await post(h.server.url, "/files/upload-batch", `${field}${tiny}--abc--\r\n`);
    let body = await response.json();
    assert.equal(response.status, 413, JSON.stringify(body));
    assert.match(body.error.message, /more than 516 parts/);
    assert.ok(Date.now() - started < 5000, `answered at once: ${Date.now() - started} ms`);
    const few = Array.from({ length: 20 }, (_, i) => part(`Content-Disposition: form-data; name="file"; filename="f${i}"`, "x")).join("");
    response = await post(h.server.url, "/files/upload", `${field}${few}--abc--\r\n`);
    assert.equal(response.status, 413);
    assert.match((await response.json()).error.message, /more than 8 parts/);

    started = Date.now();
    const huge = part(`X-Padding: a\r\n`.repeat(500_000) + 'Content-Disposition: form-data; name="files"; filename="a.txt"', "x");
    response = await post(h.server.url, "/files/upload-batch", `${field}${huge}--abc--\r\n`);
    body = await response.json();
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.match(body.error.message, /headers of a part: larger than 16 KiB/);
    assert.ok(Date.now() - started < 5000, `answered at once: ${Date.now() - started} ms`);
  } finally {
    await h.close();
  }
});

/** A batch upload of `length` bytes begun on a socket of its own (its first bytes sent, the rest
 * never); `answer` is the status line, once one comes. */
const begun: Socket[] = [];
function begin(url: string, sessionId: string, length: number): { socket: Socket; answer: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  begun.push(socket);
  socket.write(`POST ${V1}/files/upload-batch?session_id=${sessionId} HTTP/1.1\r\nHost: ${hostname}\r\nx-harness-user: alice\r\ncontent-type: ${TYPE}\r\ncontent-length: ${length}\r\n\r\n--abc\r\n`);
  socket.on("error", () => {});
  let text = "";
  const answer = new Promise<string>((resolve) => {
    socket.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\r\n\r\n")) resolve(text);
    });
    socket.on("close", () => resolve(text));
  });
  return { socket, answer };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

test("large uploads at once past the memory the server gives them are answered 503 with Retry-After; their memory is given back", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const large = 101 * 1024 * 1024;
    // What uploads being read hold now, as the diagnostics tell an operator.
    const held = async () => (await (await api(`${V1}/diagnostics`)).json()).uploads;
    assert.deepEqual(await held(), { held_bytes: 0, max_bytes: 256 * 1024 * 1024 });
    for (let round = 0; round < 2; round++) {
      const reading = [begin(h.server.url, session.id, large), begin(h.server.url, session.id, large)];
      await waitFor(async () => (await held()).held_bytes === 2 * large, `round ${round}: the first two uploads to be given their memory`);
      const refused = begin(h.server.url, session.id, large);
      const answer = await Promise.race([refused.answer, new Promise<string>((resolve) => setTimeout(() => resolve("no answer"), 10_000))]);
      assert.match(answer, /^HTTP\/1.1 503/, `round ${round}: ${answer}`);
      assert.match(answer, /retry-after: \d+/i);
      assert.match(answer, /other uploads are being read/);
      const first = await Promise.race([reading[0].answer, settle().then(() => "still reading")]);
      assert.equal(first, "still reading", `round ${round}: the first two are taken`);
      for (const { socket } of [...reading, refused]) socket.destroy();
      await waitFor(async () => (await held()).held_bytes === 0, `round ${round}: the uploads' memory to be given back`);
    }
    const data = new FormData();
    data.append("files", new Blob(["x"]), "x.txt");
    const small = await fetch(`${h.server.url}${V1}/files/upload-batch?session_id=${session.id}`, { method: "POST", body: data, headers: { "x-harness-user": "alice" } });
    assert.equal(small.status, 200);
  } finally {
    for (const socket of begun) socket.destroy();
    await h.close();
  }
});
