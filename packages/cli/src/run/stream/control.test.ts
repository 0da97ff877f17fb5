// The control protocol's channel on its own: requests asked of the other end, their answers,
// their withdrawal, and what the end of the input does to them.
import { PassThrough } from "node:stream";
import { test } from "node:test";
import assert from "node:assert/strict";
import { controlChannel } from "./control.ts";

function channel() {
  const input = new PassThrough();
  const written: any[] = [];
  const control = controlChannel(input, (line) => written.push(JSON.parse(line)), (request) => {
    if (request.subtype === "ping") return { pong: true };
    throw new Error(`unsupported control request subtype: ${request.subtype}`);
  });
  const send = (value: unknown) => input.write(`${JSON.stringify(value)}\n`);
  return { input, written, control, send };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("a request asked is settled by the control_response with its id: success with its response, error with its message", async () => {
  const { written, control, send } = channel();
  const allowed = control.ask({ subtype: "can_use_tool", tool_name: "Bash" });
  const denied = control.ask({ subtype: "can_use_tool", tool_name: "Write" });
  const [first, second] = written.map((line) => line.request_id);
  assert.deepEqual(written[0].request, { subtype: "can_use_tool", tool_name: "Bash" });
  send({ type: "control_response", response: { subtype: "error", request_id: second, error: "no callback" } });
  send({ type: "control_response", response: { subtype: "success", request_id: first, response: { behavior: "allow" } } });
  assert.deepEqual(await allowed, { behavior: "allow" });
  await assert.rejects(denied, /no callback/);
});

test("a request withdrawn sends control_cancel_request; one left unanswered when the input ends is refused", async () => {
  const { input, written, control } = channel();
  const withdraw = new AbortController();
  const asked = control.ask({ subtype: "can_use_tool" }, withdraw.signal);
  withdraw.abort();
  await assert.rejects(asked);
  assert.deepEqual(written[1], { type: "control_cancel_request", request_id: written[0].request_id });
  await assert.rejects(control.ask({ subtype: "can_use_tool" }, withdraw.signal), /withdrawn/, "one withdrawn already is not sent");
  assert.equal(written.length, 2);
  const left = control.ask({ subtype: "can_use_tool" });
  input.end();
  await assert.rejects(left, /standard input ended/);
  await assert.rejects(control.ask({ subtype: "can_use_tool" }), /nobody is there to answer/);
});

test("requests from the other end are answered in order of their handling; user messages come through between them", async () => {
  const { input, written, control, send } = channel();
  send({ type: "control_request", request_id: "a", request: { subtype: "ping" } });
  send({ type: "user", message: { role: "user", content: "hi" } });
  send({ type: "control_request", request_id: "b", request: { subtype: "nope" } });
  input.end();
  const messages = [];
  for await (const message of control.messages) messages.push(message);
  await tick();
  assert.deepEqual(messages, [{ ok: true, message: { prompt: "hi", images: [], sent: { message: { role: "user", content: "hi" } } } }]);
  assert.deepEqual(written, [
    { type: "control_response", response: { subtype: "success", request_id: "a", response: { pong: true } } },
    { type: "control_response", response: { subtype: "error", request_id: "b", error: "unsupported control request subtype: nope" } },
  ]);
});
