// The server's log over the Open Harness API: its recent records listed (filtered, paged, the most
// recent first) and streamed live, resumed after Last-Event-ID; no secret in any of it; for the
// shared token only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHarness } from "./e2e-commands-support.ts";
import { ANN_TOKEN, apiAs, readSse, takeSse, V1, withAnnsToken } from "./open-harness-support.ts";

const TOKEN = "shared-token-0123456789abcdef";
const ENV_SECRET = "sk-live-0123456789abcdefghij";

type Entry = { id: string; timestamp: string; level: string; message: string; context?: Record<string, unknown> };

test("the server's log lists its recent records, filtered and paged, the most recent first, and streams new ones, resumed after Last-Event-ID; no secret shows", async (t) => {
  const h = await startHarness({}, { HARNESS_TOKEN: TOKEN, DEPLOY_API_KEY: ENV_SECRET });
  const auth = { authorization: `Bearer ${TOKEN}` };
  const api = apiAs(h.server.url);
  const as = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { ...auth, ...init.headers } });
  const logs = async (query = ""): Promise<{ data: Entry[]; total: number; limit: number; offset: number; has_more: boolean }> => {
    const response = await as(`${V1}/logs${query}`);
    assert.equal(response.status, 200, await response.clone().text());
    return response.json();
  };
  const streams = new AbortController();
  let handedOver = false;
  try {
    const { session } = await (await as(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    h.fake.push({ text: "Done." });
    const run = await as(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: session.id }) });
    const executionId = run.headers.get("x-execution-id")!;
    await readSse(run);
    // Secrets in what the server logs: its token and a secret of its environment, in a path.
    await as(`/nothing/${TOKEN}/${ENV_SECRET}`);
    for (const wrong of ["wrong-token-0123456789", "another-wrong-token-0123"]) {
      const refused = await fetch(`${h.server.url}/sessions?userId=alice`, { headers: { authorization: `Bearer ${wrong}` } });
      assert.equal(refused.status, 401);
    }

    const all = await logs("?limit=100");
    assert.ok(all.total >= 4, `${all.total} records`);
    for (const entry of all.data) {
      assert.match(entry.id, /^[0-9a-z]+-\d+$/);
      assert.ok(["info", "warn", "error"].includes(entry.level), "nothing below the log's level (info)");
      assert.ok(!Number.isNaN(Date.parse(entry.timestamp)));
    }
    const times = all.data.map((entry) => entry.timestamp);
    assert.deepEqual(times, [...times].sort().reverse(), "the most recent first");
    const started = all.data.find((entry) => entry.message === `session alice/${session.id}: run started`);
    assert.ok(started, "the run's start is there");
    assert.deepEqual({ ...started.context, run: undefined }, { msg: "run started", user: "alice", session: session.id, run: undefined });
    const refusal = all.data.find((entry) => entry.context?.msg === "refused a request: missing or wrong token");
    assert.equal(refusal?.level, "warn");

    const text = JSON.stringify(all);
    assert.ok(!text.includes(TOKEN) && !text.includes(ENV_SECRET), "no token or secret in the log's records");
    assert.ok(all.data.some((entry) => entry.message.includes("/nothing/***/***")), "the path is there, its secrets hidden");

    // Filters and pages.
    assert.ok((await logs("?level=warn&limit=100")).data.every((entry) => entry.level === "warn" || entry.level === "error"));
    assert.ok((await logs("?level=warn")).data.some((entry) => entry.id === refusal!.id));
    // Paged among the refusals (each request here is logged as it is answered, after its answer).
    const warnings = all.data.filter((entry) => entry.level === "warn");
    assert.equal(warnings.length, 2);
    const first = await logs("?level=warn&limit=1");
    assert.deepEqual([first.data.map((entry) => entry.id), first.total, first.has_more], [[warnings[0].id], 2, true]);
    assert.deepEqual((await logs("?level=warn&limit=1&offset=1")).data.map((entry) => entry.id), [warnings[1].id]);
    const middle = all.data[Math.floor(all.data.length / 2)];
    assert.ok((await logs(`?limit=100&since=${encodeURIComponent(middle.timestamp)}`)).data.every((entry) => entry.timestamp > middle.timestamp));
    assert.ok((await logs(`?limit=100&until=${encodeURIComponent(middle.timestamp)}`)).data.every((entry) => entry.timestamp < middle.timestamp));
    assert.equal((await logs("?since=2999-01-01T00:00:00Z")).total, 0);
    const ofSession = await logs(`?limit=100&session_id=${session.id}`);
    assert.ok(ofSession.data.length >= 2 && ofSession.data.every((entry) => entry.context?.session === session.id && entry.context?.user === "alice"));
    const ofExecution = await logs(`?limit=100&execution_id=${executionId}`);
    assert.ok(ofExecution.data.some((entry) => entry.id === started.id), "the execution's run started");
    assert.ok(ofExecution.data.some((entry) => entry.context?.msg === "run completed"), "and ended");
    assert.ok(ofExecution.data.every((entry) => entry.context?.session === session.id));

    for (const [query, status, pattern] of [
      ["?level=verbose", 400, /level/],
      ["?since=yesterday", 400, /since/],
      ["?until=2020-01-01T00:00:00Z&since=2021-01-01T00:00:00Z", 400, /until/],
      ["?limit=0", 400, /limit/],
      ["?execution_id=nope", 404, /nope/],
    ] as const) {
      const bad = await as(`${V1}/logs${query}`);
      assert.equal(bad.status, status, query);
      assert.match((await bad.json()).error.message, pattern, query);
    }
    const noUser = await fetch(`${h.server.url}${V1}/logs?session_id=${session.id}`, { headers: auth });
    assert.equal(noUser.status, 400, "a session is a user's: the request names them");

    // Live: only what is logged from now on, of the level asked for.
    const live = await as(`${V1}/logs/stream?level=warn`, { signal: streams.signal });
    assert.equal(live.status, 200);
    assert.match(live.headers.get("content-type") ?? "", /text\/event-stream/);
    // The stream listens before its headers are sent: what is logged after them reaches it.
    const coming = takeSse(live, 1);
    await as(`/nothing/else`);
    await fetch(`${h.server.url}/sessions?userId=alice`, { headers: { authorization: `Bearer ${ENV_SECRET}` } });
    const [streamed] = await coming;
    assert.equal(streamed.data.level, "warn");
    assert.equal(streamed.data.id, streamed.id);
    assert.equal((streamed.data.context as Record<string, unknown>).msg, "refused a request: missing or wrong token");

    // Resumed after a record listed: the records after it, in order.
    const resumed = await as(`${V1}/logs/stream`, { signal: streams.signal, headers: { "last-event-id": all.data[1].id } });
    assert.deepEqual((await takeSse(resumed, 1)).map((event) => event.id), [all.data[0].id]);
    const badId = await as(`${V1}/logs/stream`, { headers: { "last-event-id": "42" } });
    assert.equal(badId.status, 400);
    assert.match((await badId.json()).error.message, /Last-Event-ID/);
    assert.equal((await as(`${V1}/logs/stream?level=loud`)).status, 400);

    // A person's own token reads none of the whole server's log.
    streams.abort();
    handedOver = true;
    const server = await withAnnsToken(t, h);
    const ann = await fetch(`${server.url}${V1}/logs`, { headers: { authorization: `Bearer ${ANN_TOKEN}` } });
    assert.equal(ann.status, 403);
    assert.match((await ann.json()).error.message, /shared token/);
    assert.equal((await fetch(`${server.url}${V1}/logs/stream`, { headers: { authorization: `Bearer ${ANN_TOKEN}` } })).status, 403);
    const shared = await fetch(`${server.url}${V1}/logs`, { headers: auth });
    assert.equal(shared.status, 200);
    assert.ok(!(await shared.text()).includes(ANN_TOKEN));
  } finally {
    streams.abort();
    if (!handedOver) await h.close();
  }
});
