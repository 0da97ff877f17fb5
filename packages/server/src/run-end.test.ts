import assert from "node:assert/strict";
import { test } from "node:test";
import { emptyState, type HarnessState } from "@harness/protocol";
import { runEnd } from "./run-end.ts";

const ended = (patch: Partial<HarnessState>, last?: HarnessState["messages"][number]["status"]): HarnessState => ({
  ...emptyState(),
  ...patch,
  messages: last ? [{ id: "u", role: "user", content: "p", status: "complete" }, { id: "a", role: "assistant", content: "r", status: last }] : [],
});

test("a run's end is one line: completed, cancelled, or failed with why, its lines joined", () => {
  assert.equal(runEnd(ended({ status: "idle" }, "complete")), "run completed");
  assert.equal(runEnd(ended({ status: "idle" }, "cancelled")), "run cancelled");
  assert.equal(runEnd(ended({ status: "error", error: "hook said no:\n  line two\r\nline three" }, "error")), "run failed: hook said no: line two line three");
  assert.equal(runEnd(ended({ status: "error" }, "error")), "run failed: no reason given");
});
