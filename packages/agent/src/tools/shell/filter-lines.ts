// Lines that match a regular expression the model wrote, matched on a worker thread with a time
// limit: a pattern such as ^(a+)+$ takes time exponential in a line's length on JavaScript's
// backtracking engine, and on the agent's own thread it would stop everything the process serves
// (cancelling included) until it finished.
import { Worker } from "node:worker_threads";

export const FILTER_TIME_LIMIT_MS = 2_000;

const MATCHER = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.pattern);
parentPort.postMessage(workerData.groups.map((lines) => lines.filter((line) => regex.test(line))));
`;

export type Filtered = { ok: true; groups: string[][] } | { ok: false; error: string };

/** For each group of lines, those that `pattern` (already known to compile) matches, in order;
 * all groups within one time limit. */
export function filterLines(pattern: string, groups: string[][], timeLimitMs = FILTER_TIME_LIMIT_MS): Promise<Filtered> {
  if (groups.every((lines) => lines.length === 0)) return Promise.resolve({ ok: true, groups: groups.map(() => []) });
  return new Promise((resolve) => {
    const worker = new Worker(MATCHER, { eval: true, workerData: { pattern, groups } });
    const settle = (result: Filtered) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(
      () => settle({ ok: false, error: `matching the filter ${JSON.stringify(pattern)} took more than ${timeLimitMs / 1000} s and was stopped; a pattern with nested repetition such as (a+)+ can take that long. Use a simpler pattern.` }),
      timeLimitMs,
    );
    worker.once("message", (kept: string[][]) => settle({ ok: true, groups: kept }));
    worker.once("error", (error) => settle({ ok: false, error: `the filter could not be applied: ${error.message}` }));
  });
}
