import assert from "node:assert/strict";
import { test } from "node:test";
import { envSettingProblems } from "./settings.ts";

test("a compaction percentage that cannot be used is a problem naming CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", () => {
  assert.deepEqual(envSettingProblems({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "half" }), ['CLAUDE_AUTOCOMPACT_PCT_OVERRIDE must be a percentage of the context window from 1 to 100, got "half"']);
  assert.deepEqual(envSettingProblems({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "50" }), []);
});
