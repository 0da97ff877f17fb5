import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConformanceRunStore, StoredRun } from "../../sqlite/conformance-runs.ts";
import { createConformanceRunner } from "./run.ts";
import { statusOf } from "./status.ts";
import type { RunRecord } from "./types.ts";

test("a server that fails on bad input breaks the golden rule: its robustness failures are violations, and its scratch session is still deleted", async (t) => {
  const seen: string[] = [];
  // Makes sessions, and answers everything else 500, bad input or not.
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""} ${req.headers["x-harness-user"]}`);
    req.resume();
    res.setHeader("content-type", "application/json");
    if (req.method === "POST" && req.url === "/v1/harnesses/harness/sessions") return res.writeHead(201).end(JSON.stringify({ session: { id: "scratch" } }));
    if (req.method === "DELETE" && req.url === "/v1/harnesses/harness/sessions/scratch") return res.writeHead(204).end();
    res.writeHead(500).end(JSON.stringify({ error: { code: "internal_error", message: "it broke" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const stored: StoredRun[] = [];
  const store: ConformanceRunStore = { add: (run) => void stored.push(run), list: () => [...stored].reverse(), get: () => undefined };
  const runner = createConformanceRunner({ store, version: "v9", workDirOf: (_user, session) => `/nowhere/${session}`, log: () => {}, stopping: () => undefined });
  const run = runner.start({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, userId: "ann", token: "tok", categories: ["robustness"], quick: true, routes: [] });
  assert.equal(runner.running(), run);
  await new Promise<void>((resolve) => run.listeners.add(() => run.ended && resolve()));
  assert.equal(runner.running(), undefined);
  const record = stored[0].record as RunRecord;
  assert.equal(record.failed, 5);
  // path-escape could not write the file it would keep: it checked nothing, so it is no violation.
  assert.equal(record.golden_rule_violations, 4);
  const setup = run.events.find((e) => e.type === "test.failed" && e.test_id === "robustness.path-escape");
  assert.match(setup && "error" in setup ? setup.error : "", /could not write a file \(the golden rule was not checked\)/);
  assert.equal(record.result, "fail");
  assert.equal(statusOf([record]).golden_rule_compliant, false);
  const failure = run.events.find((e) => e.type === "test.failed" && e.test_id === "robustness.not-json");
  assert.match(failure && "error" in failure ? failure.error : "", /GET \/v1\/harnesses\/harness\/sessions\/scratch answered 500, not 200: it broke/);
  assert.equal(seen.at(-1), "DELETE /v1/harnesses/harness/sessions/scratch Bearer tok ann", "the scratch session is deleted, as the caller");
  assert.deepEqual(runner.live("ann", run.id), run);
  assert.equal(runner.live("bob", run.id), undefined);
});
