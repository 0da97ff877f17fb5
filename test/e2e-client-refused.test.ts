// A WebSocket handshake the server refuses reaches a client of the SDK as the server's reason, and
// one that retrying cannot change (a wrong token, another user's) ends its reconnecting; a server
// that is down is tried again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HarnessClient, type ServerError } from "@harness/client";
import { startHarnessServer, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { newDataDir, modelEnv } = fakeModelForFile("harness-client-refused-");

const ANN = "ann-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";

test("connect() says the server refused a wrong token, or another user's, in the server's words", async (t) => {
  const dataDir = await newDataDir();
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${ANN}\nbob ${BOB}\n`);
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: file } });
  t.after(() => server.stop());
  const connect = (token: string) => new HarnessClient({ url: server.url, userId: "ann", sessionId: "s", token }).connect();

  await assert.rejects(connect("not-anyones-token-0123456789"), {
    message: `could not connect to ${server.url.replace("http", "ws")}/ws?userId=ann&sessionId=s&token=…: the server refused the WebSocket handshake (401): missing or wrong token: send Authorization: Bearer <token> or ?token=<token>`,
  });
  await assert.rejects(connect(BOB), { message: /: the server refused the WebSocket handshake \(403\): this token is bob's: it cannot act for ann$/ });
  const client = new HarnessClient({ url: server.url, userId: "ann", sessionId: "s", token: ANN });
  t.after(() => client.close());
  assert.deepEqual((await client.connect()).messages, []);
});

test("a client keeps trying a server that is down, and gives up, saying why, once it refuses its token", async (t) => {
  const dataDir = await newDataDir();
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${ANN}\n`);
  let server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: file } });
  t.after(() => server.stop());
  const port = Number(new URL(server.url).port);
  const client = new HarnessClient({ url: server.url, userId: "ann", sessionId: "s", token: ANN, reconnect: { minDelayMs: 20, maxDelayMs: 100 } });
  t.after(() => client.close());
  const errors: ServerError[] = [];
  client.on("error", (error) => errors.push(error));
  await client.connect();

  await server.stop();
  await waitFor(() => errors.length >= 3, "three failed reconnects");
  assert.equal(client.connection, "reconnecting");
  assert.ok(errors.every((e) => e.code === "reconnect_failed" && e.message.endsWith("; trying again")), JSON.stringify(errors));

  // Back, without ann's token.
  await writeFile(file, `bob ${BOB}\n`);
  server = await startHarnessServer({ dataDir, port, env: { ...modelEnv(), HARNESS_TOKENS_FILE: file } });
  await waitFor(() => client.connection === "closed", "the client to give up");
  const last = errors.at(-1)!;
  assert.equal(last.code, "reconnect_failed");
  assert.match(last.message, /: the server refused the WebSocket handshake \(401\): missing or wrong token: .*; gave up: retrying cannot change that$/);
});
