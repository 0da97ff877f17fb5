import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeMessage, MessageReader } from "./framing.ts";

test("messages framed with Content-Length are read back whole, however the bytes are split, multi-byte text included", () => {
  const a = { jsonrpc: "2.0", id: 1, method: "hover", params: { text: "naïve 😀" } };
  const b = { jsonrpc: "2.0", method: "exit" };
  const bytes = Buffer.concat([encodeMessage(a), encodeMessage(b)]);
  assert.match(bytes.toString("utf8"), /^Content-Length: \d+\r\n\r\n\{/);
  for (const size of [1, 3, 7, bytes.length]) {
    const reader = new MessageReader();
    const got: unknown[] = [];
    for (let i = 0; i < bytes.length; i += size) got.push(...reader.push(bytes.subarray(i, i + size)));
    assert.deepEqual(got, [a, b], `split every ${size} bytes`);
  }
});

test("other headers are ignored; a header without Content-Length, or a body that is not JSON, is refused by name", () => {
  const reader = new MessageReader();
  assert.deepEqual(reader.push(Buffer.from('Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n{}')), [{}]);
  assert.throws(() => new MessageReader().push(Buffer.from("Content-Type: x\r\n\r\n{}")), /without Content-Length/);
  assert.throws(() => new MessageReader().push(Buffer.from("Content-Length: 3\r\n\r\nabc")), /not JSON: abc/);
  assert.throws(() => new MessageReader().push(Buffer.from("Content-Length: 99999999999\r\n\r\n")), /over the .*-byte limit/);
});
