// The Open Harness conformance capabilities: a real `harness serve` runs its own suite against its own
// API over loopback, in a scratch session deleted after the run; its stream, results and status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarnessServer } from "@harness/test-utils";
import { startHarness, userTexts } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

type Event = Record<string, unknown> & { type: string };

async function runSuite(api: Api, body: Record<string, unknown>): Promise<{ runId: string; events: Event[] }> {
  const started = await api(`${V1}/conformance/run`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(started.status, 202, await started.clone().text());
  const { run_id, status, stream_url } = await started.json();
  assert.equal(status, "running");
  const stream = await api(new URL(stream_url).pathname + new URL(stream_url).search);
  assert.match(stream.headers.get("content-type") ?? "", /text\/event-stream/);
  return { runId: run_id, events: (await readSse(stream)).map((e) => e.data as Event) };
}

const ofType = (events: Event[], type: string) => events.filter((e) => e.type === type);

test("a quick run checks the deployment over its own API: its stream shows each test, results list it, status says partial; a full run certifies; the caller's sessions are untouched", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const status = await (await api(`${V1}/conformance/status`)).json();
    assert.deepEqual(status, { status: "not_tested", pass_rate: 0, skill_loading_method: "file-based", supports_file_gen: false, golden_rule_compliant: false });
    assert.equal((await api(`${V1}/conformance/run/stream`)).status, 404);
    const { session: mine } = await (await api(`${V1}/sessions`, { method: "POST", body: JSON.stringify({ name: "Mine" }) })).json();
    await api(`${V1}/files/notes.txt?session_id=${mine.id}`, { method: "PUT", body: "my notes" });

    const quick = await runSuite(api, { quick: true });
    const started = ofType(quick.events, "test.started");
    assert.ok(started.some((e) => e.test_id === "files.write-read" && typeof e.test_name === "string"));
    assert.equal(ofType(quick.events, "test.passed").length, started.length, JSON.stringify(ofType(quick.events, "test.failed")));
    const skipped = ofType(quick.events, "test.skipped");
    assert.deepEqual(skipped.map((e) => e.test_id), ["mcp.probe", "tools.read", "tools.bash-sandbox"]);
    assert.match(String(skipped[0].reason), /slow/);
    const progress = ofType(quick.events, "progress");
    assert.deepEqual(progress.at(-1), { type: "progress", completed: started.length + 3, total: started.length + 3 });
    const done = quick.events.at(-1)!;
    assert.equal(done.type, "done");
    assert.deepEqual({ ...(done.result as object), duration_ms: 0 }, { passed: started.length, failed: 0, skipped: 3, duration_ms: 0 });

    let results = await (await api(`${V1}/conformance/results`)).json();
    assert.equal(results.total, 1);
    assert.deepEqual([results.data[0].id, results.data[0].result, results.data[0].skipped, results.data[0].golden_rule_violations], [quick.runId, "partial", 3, 0]);
    let now = await (await api(`${V1}/conformance/status`)).json();
    assert.deepEqual([now.status, now.pass_rate, now.supports_file_gen, now.golden_rule_compliant, now.certified_version], ["partial", 1, true, true, undefined]);

    // Only the caller's own session is left, as it was; no scratch workspace stays.
    const listed = await (await api(`${V1}/sessions`)).json();
    assert.deepEqual(listed.data.map((s: { id: string; name: string }) => [s.id, s.name]), [[mine.id, "Mine"]]);
    assert.deepEqual(await readdir(join(h.dataDir, "workspaces", "alice")), [mine.id]);
    assert.equal(await (await api(`${V1}/files/notes.txt?session_id=${mine.id}`)).text(), "my notes");

    const full = await runSuite(api, {});
    assert.deepEqual(ofType(full.events, "test.failed"), []);
    assert.deepEqual(ofType(full.events, "test.skipped"), []);
    // Execution runs only when named: a full run calls no model.
    assert.ok(!ofType(full.events, "test.started").some((e) => String(e.test_id).startsWith("execution.")));
    assert.equal(h.fake.requests.length, 0);
    now = await (await api(`${V1}/conformance/status`)).json();
    assert.equal(now.status, "certified");
    assert.equal(now.pass_rate, 1);
    assert.equal(now.certified_version, (await (await api(V1)).json()).harness.version);
    results = await (await api(`${V1}/conformance/results?limit=1`)).json();
    assert.deepEqual([results.total, results.has_more, results.data[0].id, results.data[0].result], [2, true, full.runId, "pass"]);

    // The stream replays a finished run: the latest by default, from Last-Event-ID on.
    const replay = await readSse(await api(`${V1}/conformance/run/stream`));
    assert.deepEqual(replay.map((e) => e.data), full.events);
    const rest = await readSse(await api(`${V1}/conformance/run/stream?run_id=${quick.runId}`, { headers: { "last-event-id": String(quick.events.length - 1) } }));
    assert.deepEqual(rest.map((e) => e.data), [done]);
    const unknown = await api(`${V1}/conformance/run/stream?run_id=nope`);
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).error.message, /no conformance run "nope"/);
    assert.equal((await (await api(`${V1}/conformance/results`, { headers: { "x-harness-user": "bob" } })).json()).total, 0, "runs are the user's own");
    assert.deepEqual(await readdir(join(h.dataDir, "workspaces", "alice")), [mine.id]);
  } finally {
    await h.close();
  }
});

test("categories filter the run, an unknown one is refused naming the known ones, and a second run while one is under way is refused 409 naming it; with the server's token the suite runs as the caller", async () => {
  const TOKEN = "conformance-token-0123456789";
  const h = await startHarness({}, { HARNESS_TOKEN: TOKEN });
  const bare = apiAs(h.server.url);
  const api: Api = (path, init = {}) => bare(path, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...init.headers } });
  try {
    assert.equal((await bare(`${V1}/conformance/run`, { method: "POST", body: "{}" })).status, 401);
    const bad = await api(`${V1}/conformance/run`, { method: "POST", body: JSON.stringify({ categories: ["files", "telepathy"] }) });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /categories: unknown "telepathy"; the categories are harness, sessions, files, agents, skills, hooks, memory, mcp, tools, robustness/);
    const wrong = await api(`${V1}/conformance/run`, { method: "POST", body: JSON.stringify({ quick: "yes" }) });
    assert.equal(wrong.status, 400);
    assert.match((await wrong.json()).error.message, /quick/);

    const first = await api(`${V1}/conformance/run`, { method: "POST", body: JSON.stringify({ categories: ["robustness", "harness"] }) });
    assert.equal(first.status, 202);
    const { run_id } = await first.json();
    const second = await api(`${V1}/conformance/run`, { method: "POST", body: "{}" });
    assert.equal(second.status, 409);
    const refusal = (await second.json()).error;
    assert.equal(refusal.code, "conformance_run_in_progress");
    assert.equal(refusal.details.run_id, run_id);
    assert.match(refusal.message, new RegExp(run_id));
    const theirs = await api(`${V1}/conformance/run`, { method: "POST", body: "{}", headers: { "x-harness-user": "bob" } });
    assert.equal(theirs.status, 409);
    assert.doesNotMatch(await theirs.text(), new RegExp(run_id), "another user's run id is not shown");

    const events = (await readSse(await api(`${V1}/conformance/run/stream?run_id=${run_id}`))).map((e) => e.data as Event);
    const ids = ofType(events, "test.started").map((e) => String(e.test_id));
    assert.ok(ids.length > 5);
    assert.ok(ids.every((id) => /^(harness|robustness)\./.test(id)), ids.join());
    assert.ok(ids.indexOf("harness.get") < ids.indexOf("robustness.not-json"), "in the suite's order");
    assert.deepEqual(ofType(events, "test.failed"), []);
    const status = await (await api(`${V1}/conformance/status`)).json();
    assert.deepEqual([status.status, status.golden_rule_compliant, status.supports_file_gen], ["partial", true, false]);
  } finally {
    await h.close();
  }
});

test("a deployment whose workspaces cannot be made fails the files tests naming why, and is not certified", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    // Where the user's workspaces go, a file is in the way (a botched mount, a stray file).
    await writeFile(join(h.dataDir, "workspaces"), "not a directory");
    const { events } = await runSuite(api, { quick: true });
    const failed = new Map(ofType(events, "test.failed").map((e) => [String(e.test_id), String(e.error)]));
    assert.ok(failed.has("files.write-read"), JSON.stringify([...failed]));
    assert.match(failed.get("files.write-read")!, /PUT \/v1\/harnesses\/harness\/files\/conformance\/write-read\.txt\?session_id=\S+ answered \d{3}, not 200 or 201: .+/);
    assert.ok(!failed.has("harness.health"), "what does not need a workspace still passes");
    // A robustness test that could not make its file checked nothing: it fails, but is no violation.
    assert.match(failed.get("robustness.oversize")!, /could not write a file \(the golden rule was not checked\)/);
    const [latest] = (await (await api(`${V1}/conformance/results`)).json()).data;
    assert.deepEqual([latest.result, latest.golden_rule_violations], ["fail", 0]);
    const status = await (await api(`${V1}/conformance/status`)).json();
    assert.notEqual(status.status, "certified");
    assert.equal(status.supports_file_gen, false);
    assert.ok(status.pass_rate < 1);
  } finally {
    await h.close();
  }
});

test("a server that serves a project skips the tests that would write its files, leaves them alone, and is partial at best", async () => {
  const project = await mkdtemp(join(tmpdir(), "harness-conformance-project-"));
  const dataDir = await mkdtemp(join(tmpdir(), "harness-conformance-data-"));
  await writeFile(join(project, "README.md"), "the user's project\n");
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "test-key" }, args: ["--project", project] });
  const api = apiAs(server.url);
  try {
    const { events } = await runSuite(api, {});
    assert.deepEqual(ofType(events, "test.failed"), []);
    const skipped = ofType(events, "test.skipped");
    assert.ok(skipped.some((e) => e.test_id === "files.write-read"));
    assert.ok(skipped.every((e) => /serves a project/.test(String(e.reason))), JSON.stringify(skipped[0]));
    assert.ok(ofType(events, "test.passed").some((e) => e.test_id === "robustness.not-json"), "what writes no workspace still runs");
    assert.deepEqual((await readdir(project)).sort(), ["README.md"]);
    const status = await (await api(`${V1}/conformance/status`)).json();
    assert.deepEqual([status.status, status.supports_file_gen], ["partial", false]);
  } finally {
    await server.stop();
    await rm(project, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("the execution category runs only when named: a prompt runs on the model, streamed, listed and read back, and a longer one is cancelled; a model that fails fails it, saying so", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let failing = false;
  const h = await startHarness({
    // The long prompt's reply goes on until the test ends: it is cancelled while it runs.
    respond: (request) => {
      if (failing) return { kind: "http-error", status: 400, message: "this model is not available" };
      return /Count from 1/.test(userTexts(request.body as never)) ? { text: ["1\n", "2\n"], hold: held } : { text: "ok" };
    },
  });
  const api = apiAs(h.server.url);
  try {
    const quick = await runSuite(api, { categories: ["execution"], quick: true });
    assert.deepEqual(ofType(quick.events, "test.skipped").map((e) => [e.test_id, /slow/.test(String(e.reason))]), [["execution.prompt", true], ["execution.cancel", true]]);
    assert.equal(h.fake.requests.length, 0, "a quick run calls no model");

    const named = await runSuite(api, { categories: ["execution", "harness"] });
    assert.deepEqual(ofType(named.events, "test.failed"), []);
    const passed = ofType(named.events, "test.passed").map((e) => String(e.test_id));
    assert.deepEqual(passed.filter((id) => id.startsWith("execution.")), ["execution.prompt", "execution.cancel"]);
    assert.ok(passed.indexOf("harness.get") < passed.indexOf("execution.prompt"), "in the suite's order");
    assert.match(userTexts(h.fake.requests[0].body as never), /Reply with the single word: ok/);
    const [latest] = (await (await api(`${V1}/conformance/results`)).json()).data;
    assert.deepEqual([latest.id, latest.result, latest.categories], [named.runId, "partial", ["harness", "execution"]]);
    const status = await (await api(`${V1}/conformance/status`)).json();
    assert.equal(status.status, "partial", "execution alone does not certify: the default categories were not run");
    // The scratch session went with its executions' runs; the user's executions list them.
    assert.deepEqual((await (await api(`${V1}/sessions`)).json()).data, []);
    const executions = (await (await api(`${V1}/executions`)).json()).data.map((e: { status: string }) => e.status);
    assert.deepEqual(executions, ["cancelled", "completed"]);

    failing = true;
    const failed = await runSuite(api, { categories: ["execution"] });
    const errors = new Map(ofType(failed.events, "test.failed").map((e) => [String(e.test_id), String(e.error)]));
    assert.match(errors.get("execution.prompt") ?? "", /the prompt's stream sent an error: .*this model is not available/);
    assert.equal((await (await api(`${V1}/conformance/status`)).json()).status, "failing");
  } finally {
    release();
    await h.close();
  }
});
