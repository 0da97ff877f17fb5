// The Open Harness event feed: a user's executions' starts and ends, listed from the executions kept
// and streamed live as SSE, resumed after Last-Event-ID (the other types of event are
// e2e-open-harness-events-kinds.test.ts's).
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitFor } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, takeSse, V1 } from "./open-harness-support.ts";

test("a user's event feed lists and streams their executions' starts and ends, resumes after Last-Event-ID, and holds no one else's", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const bob = apiAs(h.server.url, "bob");
  const streams = new AbortController();
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const made = await (await api(`${V1}/events`)).json();
    assert.deepEqual(
      made.data.map((event: { type: string; data: unknown }) => [event.type, event.data]),
      [["session.created", { session_id: session.id }]],
    );

    const live = await api(`${V1}/events/stream`, { signal: streams.signal });
    assert.equal(live.status, 200);
    assert.match(live.headers.get("content-type") ?? "", /text\/event-stream/);
    const bobsLive = await bob(`${V1}/events/stream`, { signal: streams.signal });
    const coming = takeSse(live, 2);

    h.fake.push({ text: "Done." });
    const run = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: session.id }) });
    const executionId = run.headers.get("x-execution-id");
    await readSse(run);

    const streamed = await coming;
    assert.deepEqual(
      streamed.map((event) => [event.data.type, event.data.execution_id, event.data.session_id]),
      [
        ["execution.started", executionId, session.id],
        ["execution.completed", executionId, session.id],
      ],
    );
    assert.equal(streamed[1].data.status, "completed");
    assert.ok(streamed.every((event) => event.id && typeof event.data.timestamp === "string"));

    const listed = await (await api(`${V1}/events`)).json();
    assert.equal(listed.total, 3);
    assert.deepEqual(
      listed.data.map((event: { id: string; type: string }) => [event.id, event.type]),
      [
        [streamed[1].id, "execution.completed"],
        [streamed[0].id, "execution.started"],
        [made.data[0].id, "session.created"],
      ],
      "the most recent first, with the ids the stream gave",
    );
    const completed = listed.data[0];
    assert.equal(completed.data.execution_id, executionId);
    assert.equal(completed.data.status, "completed");
    assert.equal(completed.timestamp, completed.data.completed_at);
    assert.deepEqual((await (await api(`${V1}/events?type=execution.started`)).json()).data, [listed.data[1]]);
    assert.equal((await (await api(`${V1}/events?since=${encodeURIComponent(listed.data[1].timestamp)}`)).json()).data.every((e: { timestamp: string }) => e.timestamp > listed.data[1].timestamp), true);
    assert.equal((await (await api(`${V1}/events?since=2999-01-01T00:00:00Z`)).json()).total, 0);

    // Resumed after the start, the stream sends the end it missed.
    const resumed = await api(`${V1}/events/stream`, { signal: streams.signal, headers: { "last-event-id": streamed[0].id! } });
    assert.deepEqual((await takeSse(resumed, 1)).map((event) => event.id), [streamed[1].id]);
    const startsOnly = await api(`${V1}/events/stream?events=execution.started`, { signal: streams.signal, headers: { "last-event-id": "0-started-x" } });
    assert.deepEqual((await takeSse(startsOnly, 1)).map((event) => event.id), [streamed[0].id]);

    assert.deepEqual((await (await bob(`${V1}/events`)).json()).total, 0);
    h.fake.push({ text: "Bob's." });
    const { session: bobs } = await (await bob(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    await readSse(await bob(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "mine", session_id: bobs.id }) }));
    const [bobsMade, bobsFirst] = await takeSse(bobsLive, 2);
    assert.deepEqual([bobsMade.data.type, bobsMade.data.session_id], ["session.created", bobs.id]);
    assert.equal(bobsFirst.data.session_id, bobs.id, "bob's stream got his execution next, none of alice's");
    assert.equal((await (await api(`${V1}/events`)).json()).total, 3, "alice's list holds none of bob's");

    for (const [path, headers, pattern] of [
      ["/events?type=session.paused", {}, /type/],
      ["/events?since=yesterday", {}, /since/],
      ["/events/stream?events=execution.started,nope", {}, /events/],
      ["/events/stream", { "last-event-id": "42" }, /Last-Event-ID/],
    ] as const) {
      const bad = await api(`${V1}${path}`, { headers });
      assert.equal(bad.status, 400, path);
      assert.match((await bad.json()).error.message, pattern);
    }
    assert.equal((await api(`/v1/harnesses/other/events`)).status, 404);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.ok(caps.hooks.operations.includes("hooks.listEvents") && caps.hooks.operations.includes("hooks.streamEvents"));
  } finally {
    streams.abort();
    await h.close();
  }
});

test("event streams a client leaves are let go: after many connects and disconnects none is held", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const streams = () => api(`${V1}/diagnostics`).then(async (r) => (await r.json()).event_streams);
    assert.equal(await streams(), 0);
    const open = await Promise.all(Array.from({ length: 5 }, () => api(`${V1}/events/stream`)));
    assert.equal(await streams(), 5, "the diagnostics count the streams open");
    for (const response of open) await response.body!.cancel();
    for (let round = 0; round < 10; round++) {
      const gone = new AbortController();
      const some = await Promise.all(Array.from({ length: 10 }, (_, i) => api(`${V1}/events/stream`, { signal: gone.signal, headers: i % 2 ? { "last-event-id": "0-started-x" } : {} })));
      assert.ok(some.every((response) => response.status === 200));
      gone.abort();
    }
    // The server hears of each client gone as its socket closes, a moment after the abort.
    await waitFor(async () => (await streams()) === 0, "every stream let go", { intervalMs: 100 }).catch(async (error: Error) => assert.fail(`${error.message}: ${await streams()} still held`));
  } finally {
    await h.close();
  }
});
