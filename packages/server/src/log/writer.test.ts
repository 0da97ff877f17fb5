import { test } from "node:test";
import assert from "node:assert/strict";
import { logWriter } from "./writer.ts";

const NOW = () => new Date("2026-03-04T05:06:07.089Z");

function written(settings: Parameters<typeof logWriter>[0], lines: Parameters<ReturnType<typeof logWriter>>[]): string[] {
  const out: string[] = [];
  const log = logWriter(settings, (line) => out.push(line), NOW);
  for (const args of lines) log(...args);
  return out;
}

test("text lines are written as they are, or after their time; the detail changes nothing of them", () => {
  const lines: Parameters<ReturnType<typeof logWriter>>[] = [["Harness listening on http://127.0.0.1:7700"], ["session ann/s1: run completed", { msg: "run completed", session: "s1", durationMs: 12 }]];
  assert.deepEqual(written({ format: "text", level: "info", timestamps: false }, lines), ["Harness listening on http://127.0.0.1:7700", "session ann/s1: run completed"]);
  assert.deepEqual(written({ format: "text", level: "info", timestamps: true }, lines), [
    "2026-03-04T05:06:07.089Z Harness listening on http://127.0.0.1:7700",
    "2026-03-04T05:06:07.089Z session ann/s1: run completed",
  ]);
});

test("a JSON line is time, level, msg (the text when the detail gives none) and the detail's fields", () => {
  const out = written({ format: "json", level: "info", timestamps: false }, [
    ["Harness listening on http://127.0.0.1:7700"],
    ["session ann/s1: run failed: no key\nat all", { level: "warn", msg: "run failed: no key\nat all", user: "ann", session: "s1", durationMs: 12, resumed: false, gone: undefined }],
  ]);
  assert.deepEqual(out, [
    '{"time":"2026-03-04T05:06:07.089Z","level":"info","msg":"Harness listening on http://127.0.0.1:7700"}',
    '{"time":"2026-03-04T05:06:07.089Z","level":"warn","msg":"run failed: no key\\nat all","user":"ann","session":"s1","durationMs":12,"resumed":false}',
  ]);
});

test("lines below the level are left out, in either form", () => {
  const lines: Parameters<ReturnType<typeof logWriter>>[] = [["d", { level: "debug" }], ["i"], ["w", { level: "warn" }], ["e", { level: "error" }]];
  assert.deepEqual(written({ format: "text", level: "info", timestamps: false }, lines), ["i", "w", "e"]);
  assert.deepEqual(written({ format: "text", level: "debug", timestamps: false }, lines), ["d", "i", "w", "e"]);
  assert.deepEqual(written({ format: "text", level: "error", timestamps: false }, lines), ["e"]);
  assert.deepEqual(
    written({ format: "json", level: "warn", timestamps: false }, lines).map((line) => JSON.parse(line).msg),
    ["w", "e"],
  );
});
