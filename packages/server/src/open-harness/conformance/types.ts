// What a conformance run is made of: its tests, the events its stream sends, and what is kept of it.
import type { LoopbackApi } from "./client.ts";

/** The categories of the suite, in the order they run. */
export const CATEGORIES = ["harness", "sessions", "files", "agents", "skills", "hooks", "memory", "mcp", "tools", "robustness", "execution"] as const;
export type Category = (typeof CATEGORIES)[number];
/** The categories run only when a request names them: execution runs prompts on the model, which
 * costs the deployment's tokens. */
export const ON_REQUEST: readonly Category[] = ["execution"];
/** The categories a request that names none runs, and that a run must pass to pass. */
export const DEFAULT_CATEGORIES: readonly Category[] = CATEGORIES.filter((category) => !ON_REQUEST.includes(category));

/** What a test is given: the API over loopback as the caller, and the scratch session made for the
 * run (its workspace's path, for the tools that take absolute paths). */
export type TestContext = {
  api: LoopbackApi;
  sessionId: string;
  /** `?session_id=<the scratch session>`, for the routes that act in a session. */
  q: string;
  workspace: string;
  /** The app's route table (method and path of each route), for the routes the manifest claims. */
  routes: readonly { method: string; path: string }[];
};

export type ConformanceTest = {
  /** `<category>.<name>`, stable across versions. */
  id: string;
  name: string;
  category: Category;
  /** It needs the session's runner (a process started, the sandbox): skipped by a quick run. */
  slow?: true;
  /** It writes in the scratch session's workspace: skipped where that is the served project. */
  writesWorkspace?: true;
  /** Throws an Error naming what went wrong; returns when the test passed. */
  run(ctx: TestContext): Promise<void>;
};

export type ConformanceEvent =
  | { type: "test.started"; test_id: string; test_name: string; category: Category }
  | { type: "test.passed"; test_id: string; duration_ms: number }
  | { type: "test.failed"; test_id: string; error: string; duration_ms: number }
  | { type: "test.skipped"; test_id: string; test_name: string; category: Category; reason: string }
  | { type: "progress"; completed: number; total: number }
  | { type: "done"; result: { passed: number; failed: number; skipped: number; duration_ms: number } };

export type Outcome = "passed" | "failed" | "skipped";

/** What is kept of a run, in the store's record. */
export type RunRecord = {
  harness_version: string;
  /** The categories it ran (the default ones unless the request named some). */
  categories: Category[];
  quick: boolean;
  result: "pass" | "fail" | "partial";
  passed: number;
  failed: number;
  skipped: number;
  /** The robustness tests that failed: bad input that lost or changed what was stored, or that the
   * server did not refuse as it should. */
  golden_rule_violations: number;
  duration_ms: number;
  run_at: string;
  outcomes: Record<string, Outcome>;
  events: ConformanceEvent[];
};
