// The Open Harness uploads against bodies made to cost the server: a form of very many tiny parts,
// or parts with huge headers, is refused before it is parsed, without holding up other requests.
import { test } from "node:test";
import assert from "node:assert/strict";
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
