// What a run comes to, and what the runs kept say of the deployment (conformance.status). Pure.
//
// A run's result: pass when it ran every default category (execution, run only when named, is not
// needed) and every test passed (none skipped, none failed);
// partial when none failed but some were skipped (a quick run, a category filter, a test this
// deployment cannot run); fail when any failed.
// The status, from the latest run: certified when its result is pass; partial when it passed at least
// PARTIAL_AT of the tests it ran (passed / (passed + failed)); failing below; not_tested without runs.
// golden_rule_compliant and supports_file_gen are read from the latest run that ran the robustness
// tests, or the files tests: a run of other categories says nothing of them.
import { DEFAULT_CATEGORIES, type Category, type Outcome, type RunRecord } from "./types.ts";

export const PARTIAL_AT = 0.8;

export type ConformanceStatus = {
  status: "certified" | "partial" | "failing" | "not_tested";
  certified_version?: string;
  pass_rate: number;
  last_run_at?: string;
  skill_loading_method: "file-based";
  supports_file_gen: boolean;
  golden_rule_compliant: boolean;
};

export function resultOf(counts: { passed: number; failed: number; skipped: number }, categories: readonly Category[]): RunRecord["result"] {
  if (counts.failed > 0) return "fail";
  return counts.skipped === 0 && DEFAULT_CATEGORIES.every((category) => categories.includes(category)) ? "pass" : "partial";
}

export function passRate(run: { passed: number; failed: number }): number {
  const ran = run.passed + run.failed;
  return ran === 0 ? 0 : Math.round((run.passed / ran) * 1000) / 1000;
}

/** The outcomes of `category`'s tests in `run`, those it ran (passed or failed). */
function ranOf(run: RunRecord, category: Category): Outcome[] {
  return Object.entries(run.outcomes)
    .filter(([id, outcome]) => id.startsWith(`${category}.`) && outcome !== "skipped")
    .map(([, outcome]) => outcome);
}

/** The status that `runs` (the newest first) give. */
export function statusOf(runs: readonly RunRecord[]): ConformanceStatus {
  const base = { skill_loading_method: "file-based" as const, supports_file_gen: false, golden_rule_compliant: false };
  const latest = runs[0];
  if (!latest) return { status: "not_tested", pass_rate: 0, ...base };
  const rate = passRate(latest);
  const certified = runs.find((run) => run.result === "pass");
  const robust = runs.find((run) => ranOf(run, "robustness").length > 0);
  const files = runs.find((run) => ranOf(run, "files").length > 0);
  return {
    status: latest.result === "pass" ? "certified" : rate >= PARTIAL_AT ? "partial" : "failing",
    ...(certified && { certified_version: certified.harness_version }),
    pass_rate: rate,
    last_run_at: latest.run_at,
    skill_loading_method: "file-based",
    supports_file_gen: files !== undefined && ranOf(files, "files").every((outcome) => outcome === "passed"),
    golden_rule_compliant: robust !== undefined && robust.golden_rule_violations === 0,
  };
}
