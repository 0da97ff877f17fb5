import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { callWithState } from "../test-helpers.ts";
import { MAX_ANSWER_BYTES, registeredTool } from "./registered-tool.ts";

/** An endpoint answering each path as `answers` says. */
async function endpoint(t: { after(fn: () => unknown): void }, answers: Record<string, (res: import("node:http").ServerResponse) => void>): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => answers[req.url!]!(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const toolAt = (url: string) => registeredTool({ name: "lookup", description: "Looks up.", inputSchema: { type: "object", oneOf: [{ properties: { id: { type: "string" } } }] }, url });

test("the model gets the schema with its top-level combinators folded, as an MCP tool's", () => {
  assert.deepEqual(toolAt("https://x.example").inputSchema, { type: "object", properties: { id: { type: "string" } } });
});

test("the endpoint's answer is the result: JSON content and is_error, other content as JSON, text as it is, a long answer cut", async (t) => {
  const base = await endpoint(t, {
    "/error": (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ content: "no such order", is_error: true })),
    "/object": (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ content: { status: "shipped" } })),
    "/other-json": (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "shipped" })),
    "/long": (res) => res.writeHead(200).end("x".repeat(MAX_ANSWER_BYTES + 10)),
    "/moved": (res) => res.writeHead(302, { location: "https://elsewhere.example" }).end(),
  });
  assert.deepEqual(await callWithState(toolAt(`${base}/error`), {}, "/", undefined), { content: "no such order", isError: true });
  assert.deepEqual(await callWithState(toolAt(`${base}/object`), {}, "/", undefined), { content: '{"status":"shipped"}' });
  assert.deepEqual(await callWithState(toolAt(`${base}/other-json`), {}, "/", undefined), { content: '{"status":"shipped"}' });
  const long = await callWithState(toolAt(`${base}/long`), {}, "/", undefined);
  assert.match(long.content, /\[the endpoint's answer was cut at 1048576 bytes\]$/);
  const moved = await callWithState(toolAt(`${base}/moved`), {}, "/", undefined);
  assert.equal(moved.isError, true);
  assert.match(moved.content, /HTTP 302 \(redirects are not followed\)/);
});

test("an endpoint that cannot be reached is an error result naming its host", async () => {
  const result = await callWithState(toolAt("http://127.0.0.1:9/tool"), {}, "/", undefined);
  assert.equal(result.isError, true);
  assert.match(result.content, /127\.0\.0\.1:9\) could not be reached/);
});
