// A conformance run: the suite's tests, one after the other, against this server's own API over
// loopback, as the user who asked and with their token, in a scratch session made for the run and
// deleted after it. Its events are kept in memory while it runs (its stream follows them) and stored
// with what it came to once it ends. One run at a time per server.
import { randomUUID } from "node:crypto";
import type { ConformanceRunStore } from "../../sqlite/conformance-runs.ts";
import { expectStatus, loopbackApi, SetupFailure, type LoopbackAuth } from "./client.ts";
import { resultOf } from "./status.ts";
import { testsOf } from "./suite.ts";
import type { Category, ConformanceEvent, ConformanceTest, Outcome, RunRecord, TestContext } from "./types.ts";

export type LiveRun = {
  id: string;
  userId: string;
  events: ConformanceEvent[];
  /** Called as events are added and as the run ends. */
  listeners: Set<() => void>;
  ended: boolean;
};

export type RunRequest = LoopbackAuth & { categories: Category[]; quick: boolean; routes: TestContext["routes"] };

export type ConformanceRunner = {
  /** The run under way, if any. */
  running(): LiveRun | undefined;
  /** Starts a run (the caller has checked that none is under way). */
  start(request: RunRequest): LiveRun;
  /** The user's run of that id while it is held in memory (under way, or the last one). */
  live(userId: string, runId: string): LiveRun | undefined;
};

export type RunnerOptions = {
  store: ConformanceRunStore;
  version: string;
  /** The directory the runs of a session work in. */
  workDirOf(userId: string, sessionId: string): string;
  log: (line: string, detail?: Record<string, unknown>) => void;
  /** Why the server is going away, or undefined while it serves: a run it cuts short is not kept. */
  stopping: () => string | undefined;
};

const SLOW = "slow: it starts the session's runner (a quick run skips it)";
const SHARED = "the server serves a project, which is every session's workspace: the suite does not write the user's files";

export function createConformanceRunner(options: RunnerOptions): ConformanceRunner {
  let current: LiveRun | undefined;
  let last: LiveRun | undefined;

  function emit(run: LiveRun, event: ConformanceEvent): void {
    run.events.push(event);
    for (const listener of run.listeners) listener();
  }

  /** Why `test` is not run, or undefined. */
  function skipWhy(test: ConformanceTest, request: RunRequest, sharedWorkspace: boolean): string | undefined {
    if (test.slow && request.quick) return SLOW;
    if (test.writesWorkspace && sharedWorkspace) return SHARED;
    return undefined;
  }

  async function execute(run: LiveRun, request: RunRequest): Promise<void> {
    const started = performance.now();
    const api = loopbackApi(request);
    const tests = testsOf(request.categories);
    const outcomes: Record<string, Outcome> = {};
    let violations = 0;
    const { userId } = request;
    // Sessions of their own have workspaces of their own; a served project is every session's.
    const sharedWorkspace = options.workDirOf(userId, "conformance-a") === options.workDirOf(userId, "conformance-b");
    let sessionId: string | undefined;
    let noSession: string | undefined;
    try {
      const made = expectStatus(await api.call("POST", "/sessions", { json: { name: `conformance run ${run.id}` } }), 201).json;
      if (typeof made?.session?.id !== "string") throw new Error(`POST /sessions answered no session id: ${JSON.stringify(made).slice(0, 200)}`);
      sessionId = made.session.id;
    } catch (error) {
      noSession = `the run's scratch session could not be made: ${(error as Error).message}`;
    }
    try {
      for (const test of tests) {
        const skip = skipWhy(test, request, sharedWorkspace);
        if (skip) {
          outcomes[test.id] = "skipped";
          emit(run, { type: "test.skipped", test_id: test.id, test_name: test.name, category: test.category, reason: skip });
        } else {
          emit(run, { type: "test.started", test_id: test.id, test_name: test.name, category: test.category });
          const at = performance.now();
          const elapsed = () => Math.round(performance.now() - at);
          try {
            if (noSession !== undefined) throw new Error(noSession);
            const workspace = options.workDirOf(userId, sessionId!);
            await test.run({ api, sessionId: sessionId!, q: `?session_id=${encodeURIComponent(sessionId!)}`, workspace, routes: request.routes });
            outcomes[test.id] = "passed";
            emit(run, { type: "test.passed", test_id: test.id, duration_ms: elapsed() });
          } catch (error) {
            outcomes[test.id] = "failed";
            if (test.category === "robustness" && noSession === undefined && !(error instanceof SetupFailure)) violations++;
            emit(run, { type: "test.failed", test_id: test.id, error: (error as Error).message, duration_ms: elapsed() });
          }
        }
        emit(run, { type: "progress", completed: Object.keys(outcomes).length, total: tests.length });
      }
    } finally {
      if (sessionId !== undefined) {
        const gone = await api.call("DELETE", `/sessions/${encodeURIComponent(sessionId)}`).catch((error: Error) => error);
        if (gone instanceof Error || gone.status !== 204) {
          const why = gone instanceof Error ? gone.message : `answered ${gone.status}`;
          options.log(`conformance run ${run.id}: its scratch session ${sessionId} could not be deleted (${why}): delete it by hand`, { level: "warn", user: userId, session: sessionId });
        }
      }
    }
    const count = (outcome: Outcome) => Object.values(outcomes).filter((o) => o === outcome).length;
    const counts = { passed: count("passed"), failed: count("failed"), skipped: count("skipped") };
    const duration = Math.round(performance.now() - started);
    emit(run, { type: "done", result: { ...counts, duration_ms: duration } });
    const record: RunRecord = {
      harness_version: options.version,
      categories: request.categories,
      quick: request.quick,
      result: resultOf(counts, request.categories),
      ...counts,
      golden_rule_violations: violations,
      duration_ms: duration,
      run_at: new Date(Date.now() - duration).toISOString(),
      outcomes,
      events: run.events,
    };
    const stopping = options.stopping();
    if (stopping !== undefined) {
      options.log(`conformance run ${run.id} is not kept: ${stopping}`, { level: "warn", user: userId });
      return;
    }
    try {
      options.store.add({ id: run.id, userId, runAt: Date.parse(record.run_at), record });
    } catch (error) {
      options.log(`conformance run ${run.id} was not stored: ${(error as Error).message}`, { level: "error", user: userId });
    }
    options.log(`conformance run ${run.id}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`, { user: userId });
  }

  return {
    running: () => current,
    start(request) {
      const run: LiveRun = { id: randomUUID(), userId: request.userId, events: [], listeners: new Set(), ended: false };
      current = run;
      last = run;
      void execute(run, request)
        .catch((error: Error) => {
          options.log(`conformance run ${run.id} failed: ${error.message}`, { level: "error", user: request.userId });
          if (run.events.at(-1)?.type !== "done") emit(run, { type: "done", result: { passed: 0, failed: 0, skipped: 0, duration_ms: 0 } });
        })
        .finally(() => {
          run.ended = true;
          current = undefined;
          for (const listener of run.listeners) listener();
        });
      return run;
    },
    live: (userId, runId) => [current, last].find((run) => run !== undefined && run.userId === userId && run.id === runId),
  };
}
