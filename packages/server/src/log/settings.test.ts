import { test } from "node:test";
import assert from "node:assert/strict";
import { logSettings } from "./settings.ts";

const toPipe = () => false;
const toFile = () => true;

test("defaults: text at info level, timestamped only when standard output is a file", () => {
  assert.deepEqual(logSettings({}, toPipe), { format: "text", level: "info", timestamps: false });
  assert.deepEqual(logSettings({}, toFile), { format: "text", level: "info", timestamps: true });
  assert.deepEqual(logSettings({ HARNESS_LOG_FORMAT: "", HARNESS_LOG_LEVEL: "", HARNESS_LOG_TIMESTAMPS: "" }, toPipe), { format: "text", level: "info", timestamps: false });
});

test("the variables set the format, the level and the timestamps, whatever the output", () => {
  assert.deepEqual(logSettings({ HARNESS_LOG_FORMAT: "json", HARNESS_LOG_LEVEL: "debug", HARNESS_LOG_TIMESTAMPS: "1" }, toPipe), { format: "json", level: "debug", timestamps: true });
  assert.deepEqual(logSettings({ HARNESS_LOG_FORMAT: "JSON", HARNESS_LOG_LEVEL: " Warn ", HARNESS_LOG_TIMESTAMPS: "0" }, toFile), { format: "json", level: "warn", timestamps: false });
});

test("a bad value is refused naming the variable, the values it takes and what it was given", () => {
  assert.throws(() => logSettings({ HARNESS_LOG_FORMAT: "xml" }, toPipe), { message: 'HARNESS_LOG_FORMAT must be text or json, got "xml"' });
  assert.throws(() => logSettings({ HARNESS_LOG_LEVEL: "verbose" }, toPipe), { message: 'HARNESS_LOG_LEVEL must be debug, info, warn or error, got "verbose"' });
  assert.throws(() => logSettings({ HARNESS_LOG_TIMESTAMPS: "yes" }, toPipe), { message: 'HARNESS_LOG_TIMESTAMPS must be 1 or 0, got "yes"' });
});
