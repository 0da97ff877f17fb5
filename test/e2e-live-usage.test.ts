// A run's usage and cost move with each model call, end to end: a real server and its runner, the
// fake model, and a minimal client that sees the cost grow while the run still goes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { idle, startHarness } from "./e2e-commands-support.ts";
import type { MinimalState } from "@harness/test-utils";

type Figures = { usage?: { inputTokens: number; outputTokens: number; costUsd?: number }; lastCall?: { inputTokens: number } };
const figures = (s: MinimalState) => s as unknown as Figures;

test("a client sees usage.costUsd grow after the run's first model call, before the run ends; the end sets the run's sums", async () => {
  const h = await startHarness();
  try {
    h.fake.push(
      { toolUses: [{ name: "Bash", input: { command: "sleep 2" } }], usage: { input_tokens: 1000, output_tokens: 100 } },
      { text: "Slept.", usage: { input_tokens: 2000, output_tokens: 50 } },
    );
    const client = await h.connect("live-usage");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "sleep a while" });
    await client.waitForState((s) => (figures(s).usage?.costUsd ?? 0) > 0, 30_000, "the first call's cost");
    const during = client.state!;
    assert.equal(during.status, "running", "seen while the run goes");
    assert.equal(figures(during).usage?.inputTokens, 1000);
    assert.equal(figures(during).usage?.costUsd?.toFixed(4), "0.0045");
    assert.equal(figures(during).lastCall?.inputTokens, 1000);

    await client.waitForState(idle, 30_000, "the run to end");
    const end = figures(client.state!);
    assert.equal(end.usage?.inputTokens, 3000);
    assert.equal(end.usage?.outputTokens, 150);
    assert.equal(end.usage?.costUsd?.toFixed(5), "0.01125");
    assert.equal(end.lastCall?.inputTokens, 2000);
    assert.deepEqual(client.errors, []);
    await client.close();
  } finally {
    await h.close();
  }
});
