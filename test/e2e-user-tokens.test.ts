// HARNESS_TOKENS_FILE gives each person a token of their own that lets them in as themselves only,
// where HARNESS_TOKEN lets its holder act as any user.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MinimalClient, startHarnessServer } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-user-tokens-");

const ANN = "ann-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";
const SHARED = "shared-token-0123456789abcdef";

async function tokensFile(dir: string, text: string): Promise<string> {
  const file = join(dir, "tokens");
  await writeFile(file, text);
  return file;
}

test("a user's token lets its holder in as that user only, over the WebSocket and HTTP; the shared token as anyone", async (t) => {
  const dataDir = await newDataDir();
  const file = await tokensFile(dataDir, `# user token\nann ${ANN}\n\nbob   ${BOB}\n`);
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_HOST: "0.0.0.0", HARNESS_TOKENS_FILE: file, HARNESS_TOKEN: SHARED } });
  t.after(() => server.stop());

  fake().push({ text: "hello ann" });
  const ann = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "mine", token: ANN });
  t.after(() => ann.close());
  ann.send({ type: "submit", prompt: "hi" });
  await ann.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");

  await assert.rejects(MinimalClient.connect(server.url, { userId: "ann", sessionId: "mine", token: BOB }), /403/);
  await server.waitForOutput(/refused a WebSocket from 127\.0\.0\.1: the token is bob's, not ann's/);

  const sessions = (token: string, userId: string) => fetch(`${server.url}/sessions?userId=${userId}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await sessions(ANN, "ann")).status, 200);
  const refused = await sessions(BOB, "ann");
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), { error: "this token is bob's: it cannot act for ann" });
  assert.equal((await sessions(SHARED, "ann")).status, 200);
  const viaShared = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "mine", token: SHARED });
  t.after(() => viaShared.close());
  await viaShared.waitForState((s) => s.messages[1]?.content === "hello ann");
  assert.equal((await sessions("not-anyones-token-0123456789", "ann")).status, 401);
  assert.doesNotMatch(server.output(), new RegExp(`${ANN}|${BOB}|${SHARED}`));
});

test("a tokens file alone is enough to listen off loopback; a bad one is refused at start naming its line", async (t) => {
  const dataDir = await newDataDir();
  const good = await tokensFile(dataDir, `ann ${ANN}\n`);
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_HOST: "0.0.0.0", HARNESS_TOKENS_FILE: good } });
  t.after(() => server.stop());
  assert.equal((await fetch(`${server.url}/health`)).status, 401);
  assert.equal((await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${ANN}` } })).status, 200);
  await server.stop();

  for (const [text, why] of [
    [`ann ${ANN}\nbob short\n`, /HARNESS_TOKENS_FILE .*tokens line 2: bob's token has 5 characters: use at least 16/],
    [`ann ${ANN}\nbob ${ANN}\n`, /HARNESS_TOKENS_FILE .*tokens line 2: the token of line 1 again/],
    [`ann/x ${ANN}\n`, /HARNESS_TOKENS_FILE .*tokens line 1: user "ann\/x" must be 1 to 128 letters, digits/],
    [`ann\n`, /HARNESS_TOKENS_FILE .*tokens line 1: give a user and a token, separated by spaces/],
  ] as const) {
    await writeFile(good, text);
    await assert.rejects(startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: good } }), why);
  }
  await assert.rejects(startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: join(dataDir, "missing") } }), /HARNESS_TOKENS_FILE: cannot read .*missing/);
});
