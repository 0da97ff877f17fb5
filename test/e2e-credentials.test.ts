// The model credentials the server holds travel with each query: a runner's tools never find them
// in their environment, whichever provider they are for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, startFakeAnthropic, startFakeOpenAI, startHarnessServer } from "@harness/test-utils";

test("an openai/… session's requests carry the server's OPENAI_API_KEY, and its Bash sees neither key", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-keys-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const anthropic = await startFakeAnthropic();
  t.after(() => anthropic.close());
  const openai = await startFakeOpenAI({
    replies: [
      { toolCalls: [{ name: "Bash", arguments: { command: 'echo "keys:[$OPENAI_API_KEY][$ANTHROPIC_API_KEY]"', description: "look" } }] },
      { text: "done" },
    ],
  });
  t.after(() => openai.close());
  const server = await startHarnessServer({
    dataDir,
    env: {
      ANTHROPIC_API_KEY: "anthropic-secret",
      ANTHROPIC_BASE_URL: anthropic.url,
      OPENAI_API_KEY: "openai-secret",
      OPENAI_BASE_URL: openai.url,
      HARNESS_MODEL: "openai/gpt-test",
    },
  });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "keys", sessionId: "one" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "submit", prompt: "look at the environment" });
  await client.waitForState((s) => s.status !== "running" && s.messages[1]?.status === "complete", 30_000, "the run to end");
  const call = client.state!.messages[1].toolCalls?.[0];
  assert.equal(call?.status, "complete", JSON.stringify(call));
  assert.match(call?.output ?? "", /^keys:\[\]\[\]\s*$/);
  assert.equal(openai.requests.length, 2);
  for (const request of openai.requests) assert.equal(request.headers.authorization, "Bearer openai-secret");
});
