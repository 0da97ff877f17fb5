import { test } from "node:test";
import assert from "node:assert/strict";
import { resultOf, statusOf } from "./status.ts";
import { CATEGORIES, DEFAULT_CATEGORIES, type RunRecord } from "./types.ts";

const run = (over: Partial<RunRecord>): RunRecord => ({
  harness_version: "v1",
  categories: [...CATEGORIES],
  quick: false,
  result: "pass",
  passed: 10,
  failed: 0,
  skipped: 0,
  golden_rule_violations: 0,
  duration_ms: 5,
  run_at: "2026-01-01T00:00:00.000Z",
  outcomes: { "files.write-read": "passed", "robustness.not-json": "passed" },
  events: [],
  ...over,
});

test("a run passes only when it ran every category and every test passed; skipped ones make it partial, a failure fails it", () => {
  assert.equal(resultOf({ passed: 3, failed: 0, skipped: 0 }, CATEGORIES), "pass");
  assert.equal(resultOf({ passed: 3, failed: 0, skipped: 1 }, CATEGORIES), "partial");
  assert.equal(resultOf({ passed: 3, failed: 0, skipped: 0 }, ["harness"]), "partial");
  assert.equal(resultOf({ passed: 3, failed: 1, skipped: 0 }, CATEGORIES), "fail");
  // execution runs only when named: a run of every default category passes without it.
  assert.equal(resultOf({ passed: 3, failed: 0, skipped: 0 }, DEFAULT_CATEGORIES), "pass");
  assert.equal(resultOf({ passed: 3, failed: 0, skipped: 0 }, ["execution"]), "partial");
});

test("the status is not_tested without runs, certified by a passed latest run, partial at 80% and failing below", () => {
  assert.deepEqual(statusOf([]), { status: "not_tested", pass_rate: 0, skill_loading_method: "file-based", supports_file_gen: false, golden_rule_compliant: false });
  const certified = statusOf([run({})]);
  assert.deepEqual(certified, {
    status: "certified",
    certified_version: "v1",
    pass_rate: 1,
    last_run_at: "2026-01-01T00:00:00.000Z",
    skill_loading_method: "file-based",
    supports_file_gen: true,
    golden_rule_compliant: true,
  });
  const quick = statusOf([run({ result: "partial", skipped: 2, harness_version: "v2" }), run({})]);
  assert.equal(quick.status, "partial");
  assert.equal(quick.certified_version, "v1", "the version of the latest run that passed");
  const broken = { "files.write-read": "failed" as const, "robustness.not-json": "failed" as const };
  const failing = statusOf([run({ result: "fail", passed: 7, failed: 3, outcomes: broken, golden_rule_violations: 1 })]);
  assert.deepEqual([failing.status, failing.pass_rate, failing.supports_file_gen, failing.golden_rule_compliant], ["failing", 0.7, false, false]);
  assert.equal(statusOf([run({ result: "fail", passed: 8, failed: 2 })]).status, "partial");
});

test("file generation and the golden rule are read from the latest run that ran those tests, not from a run of other categories", () => {
  const other = run({ result: "partial", categories: ["harness"], outcomes: { "harness.get": "passed" } });
  const older = run({ outcomes: { "files.write-read": "failed", "robustness.not-json": "failed" }, golden_rule_violations: 1, result: "fail", failed: 2 });
  const status = statusOf([other, older]);
  assert.equal(status.supports_file_gen, false);
  assert.equal(status.golden_rule_compliant, false);
  const skippedOnly = run({ result: "partial", outcomes: { "files.write-read": "skipped", "robustness.not-json": "skipped" } });
  assert.equal(statusOf([skippedOnly]).supports_file_gen, false, "skipped files tests say nothing");
});
