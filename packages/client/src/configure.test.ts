import { test } from "node:test";
import assert from "node:assert/strict";
import { connectedClient, tick } from "./test-helpers.ts";
import type { HarnessState } from "@harness/protocol";

const pending = (p: Promise<unknown>) => Promise.race([p.then(() => "settled"), tick(50).then(() => "pending")]);


test("configure() resolves once the session holds the settings, or with the server's refusal, as a value", async () => {
  const { socket, client } = await connectedClient({ status: "idle", messages: [], config: { maxTurns: 3 } });
  assert.deepEqual(await client.configure({ maxTurns: 3 }), { ok: true, config: { maxTurns: 3 } }, "what the session holds already is taken at once");

  const taken = client.configure({ model: "claude-haiku-4-5" });
  assert.deepEqual(JSON.parse(socket.sent.at(-1)!), { type: "commands", commands: [{ type: "configure", config: { model: "claude-haiku-4-5" } }] });
  assert.equal(await pending(taken), "pending");
  socket.serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["config", "model"], value: "claude-haiku-4-5" }] });
  assert.deepEqual(await taken, { ok: true, config: { maxTurns: 3, model: "claude-haiku-4-5" } });

  const refused = client.configure({ model: "gpt-9" });
  socket.serve({ type: "error", message: "a run is already in progress; cancel it or wait for it to finish", code: "busy", command: 0 });
  assert.equal(await pending(refused), "pending", "another command's error is not the configure's");
  socket.serve({ type: "error", message: 'configure: model "gpt-9" cannot be used here: not in availableModels', code: "bad_command", command: 0 });
  assert.deepEqual(await refused, { ok: false, error: 'configure: model "gpt-9" cannot be used here: not in availableModels', code: "bad_command" });

  const closing = client.configure({ effort: "high" });
  client.close();
  assert.deepEqual(await closing, { ok: false, error: "the client closed: close() was called" });
  assert.throws(() => client.configure({ effort: "low" }), /^Error: the client is closed: call connect\(\) before sending commands$/);
});
