// A backend wrapped for telemetry: its run reports, whichever way it ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Backend, BackendContext } from "../backend.ts";
import { startTelemetry } from "./start.ts";

test("a run that throws still counts its active time", async () => {
  const lines: string[] = [];
  const telemetry = startTelemetry({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_METRICS_EXPORTER: "console" }, { debug: () => {}, console: (line) => lines.push(line), note: () => {} })!;
  const failing: Backend = {
    name: "failing",
    async run() {
      await new Promise((r) => setTimeout(r, 20));
      throw new Error("the backend broke");
    },
  };
  await assert.rejects(telemetry.wrap(failing, { sessionId: "s" }).run({ prompt: "p" }, { emit: () => {} } as unknown as BackendContext), /the backend broke/);
  await telemetry.shutdown(1_000);
  assert.match(lines.join("\n"), /"name":"harness\.active_time\.total"/);
});
