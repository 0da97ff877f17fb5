// A conversation whose calls are not all of a known price, through harness serve: the session's
// usage and /cost count those calls apart instead of pricing them at $0, on the runner that made
// them and on the next one (after the runner died).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, processAlive, startFakeOpenAI, startHarnessServer, storedRunnerPid, waitFor } from "@harness/test-utils";

type Spent = { usage?: { costUsd?: number; unpricedCalls?: number } };

test("/cost after a priced call and a call of a model without a price says what is known and counts the other call apart, on the next runner too", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-unpriced-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  // Each call: 1000 in and 100 out; Claude Haiku 4.5 ($1 and $5 a million tokens) costs $0.0015.
  const usage = { prompt_tokens: 1000, completion_tokens: 100 };
  const fake = await startFakeOpenAI({ replies: [{ text: "first", usage }, { text: "second", usage }] });
  t.after(() => fake.close());
  const env = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", OPENAI_BASE_URL: fake.url, HARNESS_MODEL: "openai/anthropic/claude-haiku-4.5", HARNESS_MODEL_RETRIES: "0" };
  const server = await startHarnessServer({ dataDir, env });
  t.after(() => server.stop("SIGKILL"));
  const ids = { userId: "local", sessionId: "unpriced" };
  const client = await MinimalClient.connect(server.url, ids);
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  const ask = async (prompt: string) => {
    const at = client.state!.messages.length + 1;
    client.send({ type: "submit", prompt });
    await client.waitForState((s) => s.status === "idle" && s.messages[at]?.status === "complete", 30_000, `"${prompt}" to be answered`);
    return String(client.state!.messages[at]!.content);
  };

  assert.equal(await ask("hello"), "first");
  client.send({ type: "configure", config: { model: "openai/qwen3-235b-a22b" } });
  assert.equal(await ask("again"), "second");
  const spent = (client.state as { spent?: Spent }).spent;
  assert.equal(spent?.usage?.costUsd?.toFixed(4), "0.0015", JSON.stringify(spent));
  assert.equal(spent?.usage?.unpricedCalls, 1);

  const pid = storedRunnerPid(dataDir, ids)!;
  process.kill(pid, "SIGKILL");
  await waitFor(() => !processAlive(pid) && storedRunnerPid(dataDir, ids) === undefined, "the server to see the runner die", { timeoutMs: 15_000 });
  const report = await ask("/cost");
  assert.match(report, /Total cost:\s+\$0\.0015 \+ 1 call of unknown price\n/);
  assert.match(report, /Model calls:\s+2\b/);
  assert.equal(fake.requests.length, 2, "the report needs no model call");
});
