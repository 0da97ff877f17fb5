// The whole suite, in the order it runs: the harness itself first, the session's workspace and what
// its runs would load next, its runner's tools, the robustness tests, and last the execution tests
// (run only when a request names them).
import { CORE_TESTS } from "./suite-core.ts";
import { CONFIG_TESTS } from "./suite-config.ts";
import { FILE_TESTS } from "./suite-files.ts";
import { EXECUTION_TESTS } from "./suite-execution.ts";
import { ROBUSTNESS_TESTS } from "./suite-robustness.ts";
import { CATEGORIES, type Category, type ConformanceTest } from "./types.ts";

export const SUITE: readonly ConformanceTest[] = [...CORE_TESTS, ...FILE_TESTS, ...CONFIG_TESTS, ...ROBUSTNESS_TESTS, ...EXECUTION_TESTS].sort(
  (a, b) => CATEGORIES.indexOf(a.category) - CATEGORIES.indexOf(b.category),
);

/** The tests of `categories`, in the suite's order. */
export function testsOf(categories: readonly Category[]): ConformanceTest[] {
  return SUITE.filter((test) => categories.includes(test.category));
}
