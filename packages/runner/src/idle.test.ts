import { test } from "node:test";
import assert from "node:assert/strict";
import { createIdleTimer, DEFAULT_IDLE_EXIT_MS, idleExitMs } from "./idle.ts";
import { waitFor } from "./test-support.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("the idle callback waits while busy, fires once when quiet, and never after stop()", async () => {
  let busy = true;
  let fired = 0;
  const timer = createIdleTimer(20, () => busy, () => fired++);
  await sleep(150);
  assert.equal(fired, 0, "busy the whole time");
  busy = false;
  await waitFor(() => fired === 1, "the idle callback");
  await sleep(100);
  assert.equal(fired, 1);
  timer.stop();

  const stopped = createIdleTimer(20, () => false, () => fired++);
  stopped.stop();
  stopped.touch();
  await sleep(100);
  assert.equal(fired, 1);
});

test("touching keeps the runner awake", async () => {
  let fired = false;
  const timer = createIdleTimer(200, () => false, () => (fired = true));
  const started = Date.now();
  // Touch well within the period for a while; on a slow machine a late touch only makes this pass
  // vacuously short, never fail spuriously.
  while (Date.now() - started < 600 && !fired) {
    timer.touch();
    await sleep(20);
  }
  const touchedFor = Date.now() - started;
  timer.stop();
  if (touchedFor >= 600) assert.equal(fired, false);
});

test("HARNESS_RUNNER_IDLE_EXIT_MS is read as milliseconds; 0 is never; nonsense is named", () => {
  assert.deepEqual(idleExitMs(undefined), { ok: true, ms: DEFAULT_IDLE_EXIT_MS });
  assert.deepEqual(idleExitMs("  "), { ok: true, ms: DEFAULT_IDLE_EXIT_MS });
  assert.deepEqual(idleExitMs("2500"), { ok: true, ms: 2500 });
  assert.deepEqual(idleExitMs("0"), { ok: true, ms: 0 });
  assert.equal(idleExitMs("-1").ok, false);
  assert.equal(idleExitMs("1.5").ok, false);
  assert.match((idleExitMs("soon") as { error: string }).error, /HARNESS_RUNNER_IDLE_EXIT_MS .*"soon"/);
});
