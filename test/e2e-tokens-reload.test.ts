// A running server takes the changes to HARNESS_TOKENS_FILE without a restart: it re-reads the file
// when it changes and on SIGHUP. A removed token stops letting anyone in, and the sockets open with
// it are closed as a refusal; a bad version is refused, and the tokens before it stay in force.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HarnessClient, type ServerError } from "@harness/client";
import { MinimalClient, startHarnessServer, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-tokens-reload-");

const LAPTOP = "ann-laptop-0123456789abcdef";
const PHONE = "ann-phone-0123456789abcdef";
const CAROL = "carol-token-0123456789abcdef";

const sessions = (url: string, token: string, userId: string) => fetch(`${url}/sessions?userId=${userId}`, { headers: { authorization: `Bearer ${token}` } });
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, "g"))?.length ?? 0;

test("a token removed from the file closes its sockets as a refusal, and the client says so and stops; the run goes on; a new token works at once", async (t) => {
  const dataDir = await newDataDir();
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${LAPTOP}\nann ${PHONE}\n`);
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: file } });
  t.after(() => server.stop());

  const laptop = new HarnessClient({ url: server.url, userId: "ann", sessionId: "s", token: LAPTOP, reconnect: { minDelayMs: 20, maxDelayMs: 100 } });
  t.after(() => laptop.close());
  const errors: ServerError[] = [];
  laptop.on("error", (error) => errors.push(error));
  await laptop.connect();
  const phone = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "s", token: PHONE });
  t.after(() => phone.close());

  let release!: () => void;
  fake().push({ text: ["still ", "running"], hold: new Promise<void>((resolve) => (release = resolve)) });
  laptop.submit("hi");
  await phone.waitForState((s) => s.status === "running");

  await writeFile(file, `ann ${PHONE}\ncarol ${CAROL}\n`);
  await waitFor(() => laptop.connection === "closed", "the laptop's client to be closed");
  assert.deepEqual(errors, [{ code: "token_refused", message: "the server closed the connection: the token is no longer accepted: the server's tokens file changed; gave up: retrying with this token cannot change that" }]);
  await server.waitForOutput(/HARNESS_TOKENS_FILE .*tokens re-read: 2 tokens in force now/);
  await server.waitForOutput(/closed a WebSocket of ann\/s: its token is no longer accepted/);

  // The run the laptop started is the session's: the phone, whose token stays, sees it end.
  release();
  await phone.waitForState((s) => s.status === "idle" && s.messages[1]?.content === "still running");
  assert.equal((await sessions(server.url, LAPTOP, "ann")).status, 401);
  assert.equal((await sessions(server.url, PHONE, "ann")).status, 200);
  assert.equal((await sessions(server.url, CAROL, "carol")).status, 200);
  await assert.rejects(new HarnessClient({ url: server.url, userId: "ann", sessionId: "s", token: LAPTOP }).connect(), /refused the WebSocket handshake \(401\)/);
  assert.doesNotMatch(server.output(), new RegExp(`${LAPTOP}|${PHONE}|${CAROL}`));
});

test("a bad version of the file is refused naming its line, and the tokens before it stay; an editor's rename and SIGHUP are seen", async (t) => {
  const dataDir = await newDataDir();
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${LAPTOP}\n`);
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_HOST: "0.0.0.0", HARNESS_TOKENS_FILE: file } });
  t.after(() => server.stop());

  for (const [text, why] of [
    [`ann ${LAPTOP}\ncarol short\n`, /HARNESS_TOKENS_FILE .*tokens line 2: carol's token has 5 characters: use at least 16 .*; the file is not taken: the 1 token before it stays in force/],
    [`ann ${LAPTOP}\ncarol ${LAPTOP}\n`, /HARNESS_TOKENS_FILE .*tokens line 2: the token of line 1 again .*; the file is not taken: the 1 token before it stays in force/],
    [`carol/x ${CAROL}\n`, /HARNESS_TOKENS_FILE .*tokens line 1: user "carol\/x" must be 1 to 128 letters, digits.*; the file is not taken/],
  ] as const) {
    await writeFile(file, text);
    await waitFor(() => why.test(server.output()), `the log to say ${why}`);
    assert.equal((await sessions(server.url, LAPTOP, "ann")).status, 200);
    assert.equal((await sessions(server.url, CAROL, "carol")).status, 401);
  }
  await rm(file);
  await waitFor(() => /HARNESS_TOKENS_FILE: cannot read .*tokens: .*; the file is not taken/.test(server.output()), "the log to say the file cannot be read");
  assert.equal((await sessions(server.url, LAPTOP, "ann")).status, 200);

  // An editor that writes a new file and renames it over the old one.
  await writeFile(`${file}.new`, `carol ${CAROL}\n`);
  await rename(`${file}.new`, file);
  await waitFor(async () => (await sessions(server.url, CAROL, "carol")).status === 200, "carol's token to be taken");
  assert.equal((await sessions(server.url, LAPTOP, "ann")).status, 401);

  // SIGHUP re-reads the file, and the server goes on.
  const reads = count(server.output(), /tokens re-read: 1 token in force now/);
  server.child.kill("SIGHUP");
  await waitFor(() => count(server.output(), /tokens re-read: 1 token in force now/) > reads, "SIGHUP to re-read the file");
  assert.equal((await sessions(server.url, CAROL, "carol")).status, 200);
  assert.doesNotMatch(server.output(), new RegExp(`${LAPTOP}|${CAROL}`));
});
