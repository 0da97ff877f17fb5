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

test("a text line stays one line whatever it quotes: line breaks join it, control characters (a terminal's escapes) are shown escaped", () => {
  const out = written({ format: "text", level: "info", timestamps: true }, [
    ["runner 7 exited with code 1; its last output: Error: boom\n2026-03-04T05:06:07.089Z session ann/s1: run completed"],
    ["session ann/s1: run failed: \u001b[2J\u001b]0;owned\u0007 cleared\r\n  and \u009b31m red\u2028end\u007f"],
  ]);
  assert.deepEqual(out, [
    "2026-03-04T05:06:07.089Z runner 7 exited with code 1; its last output: Error: boom 2026-03-04T05:06:07.089Z session ann/s1: run completed",
    "2026-03-04T05:06:07.089Z session ann/s1: run failed: \\x1b[2J\\x1b]0;owned\\x07 cleared and \\x9b31m red end\\x7f",
  ]);
});

test("a JSON line escapes what a terminal would take for a command, and stays JSON", () => {
  const [line] = written({ format: "json", level: "info", timestamps: false }, [["x", { msg: "a \u009b31m b\u2028c\u007f", error: "\u001b[2J" }]]);
  assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  assert.deepEqual(JSON.parse(line), { time: "2026-03-04T05:06:07.089Z", level: "info", msg: "a \u009b31m b\u2028c\u007f", error: "\u001b[2J" });
});
