// The Open Harness event feed outlives the server: sessions made and ended and skills installed and
// removed are read back after `harness serve` restarts on the same data directory, with the ids they
// had; a stream resumed after Last-Event-ID across the restart sends exactly the events it missed;
// webhooks are not told again of events they were told before; what is past the feed's keeping
// (7 days, 10,000 a user) is neither listed nor kept; a database another process holds locked
// delays their writing, never their telling.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { holdLock, startHarnessServer } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, takeSse, V1, type Api } from "./open-harness-support.ts";

type Listed = { id: string; type: string; data: Record<string, unknown>; timestamp: string };

/** A receiver on loopback keeping each body it is sent. */
async function receiver(): Promise<{ url: string; bodies: Record<string, unknown>[]; close(): Promise<void> }> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, bodies, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (ok()) return;
  throw new Error(`never: ${what}`);
}

const SKILL = "---\nname: deploy\ndescription: Deploys the app to staging\n---\nRun scripts/deploy.sh.\n";

async function installSkill(url: string, sessionId: string): Promise<void> {
  const form = new FormData();
  form.append("files", new Blob([SKILL]), "deploy/SKILL.md");
  const installed = await fetch(`${url}${V1}/skills?session_id=${sessionId}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
  assert.equal(installed.status, 201, await installed.clone().text());
}

const listOf = async (api: Api, query = "limit=100"): Promise<{ data: Listed[]; total: number; has_more: boolean }> => (await api(`${V1}/events?${query}`)).json();

test("after a restart the feed lists its events with their ids, a stream resumed after Last-Event-ID sends only those it missed, and webhooks are not told twice", async () => {
  const h = await startHarness({}, { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1" });
  const api = apiAs(() => h.server.url);
  const hooked = await receiver();
  const streams = new AbortController();
  try {
    const subscribed = await api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url: hooked.url, events: ["session.created", "skill.installed", "skill.uninstalled"] }) });
    assert.equal(subscribed.status, 201);
    const live = await api(`${V1}/events/stream`, { signal: streams.signal });
    const coming = takeSse(live, 2);
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    await installSkill(h.server.url, session.id);
    const seen = await coming;
    assert.deepEqual(seen.map((event) => event.data.type), ["session.created", "skill.installed"]);
    await until("the webhook was told of both", () => hooked.bodies.length >= 2);
    const before = await listOf(api);
    assert.equal(before.total, 2);

    await h.server.stop();
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });

    const after = await listOf(api);
    assert.deepEqual(after, before, "the same events, ids and times after the restart");
    assert.deepEqual(after.data.map((event) => event.id), seen.map((event) => event.id).reverse());
    assert.deepEqual((await listOf(api, "type=skill.installed")).data.map((event) => event.data.skill_id), ["deploy"]);
    assert.equal((await listOf(api, `since=${encodeURIComponent(seen[1].data.timestamp as string)}`)).total, 0);
    assert.equal((await listOf(api, "limit=1&offset=1")).data[0].id, seen[0].id);
    assert.equal((await listOf(apiAs(() => h.server.url, "bob"))).total, 0, "bob's feed holds none of alice's");
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.ok(caps.hooks.limitations.some((l: string) => /session\.created/.test(l) && /7 days/.test(l) && /after a restart/.test(l)));

    // What happens while the client is away, after the restart.
    assert.equal((await api(`${V1}/skills/deploy?session_id=${session.id}`, { method: "DELETE" })).status, 204);
    assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);

    // Resumed after the last event it saw (before the restart): exactly the two it missed, then the
    // next one as it happens (so nothing else came between). The stream has taken what it missed and
    // listens for what comes next by the time its answer's headers are sent.
    const resumed = await api(`${V1}/events/stream`, { signal: streams.signal, headers: { "last-event-id": seen[1].id! } });
    const replay = takeSse(resumed, 3);
    const { session: next } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const got = await replay;
    assert.deepEqual(
      got.map((event) => [event.data.type, event.data.session_id]),
      [
        ["skill.uninstalled", session.id],
        ["session.ended", session.id],
        ["session.created", next.id],
      ],
    );
    const listed = await listOf(api);
    assert.deepEqual(listed.data.map((event) => event.id), [...seen, ...got].map((event) => event.id).reverse(), "the new ids come after the old ones");
    const fromFirst = await api(`${V1}/events/stream`, { signal: streams.signal, headers: { "last-event-id": seen[0].id! } });
    assert.deepEqual((await takeSse(fromFirst, 4)).map((event) => event.id), [seen[1], ...got].map((event) => event.id));

    // Told once each: the webhook is not sent again what it got before the restart.
    await until("the webhook was told of the new ones", () => hooked.bodies.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      hooked.bodies.map((body) => body.event_id),
      [seen[0].id, seen[1].id, got[0].id, got[2].id],
    );
  } finally {
    streams.abort();
    await hooked.close();
    await h.close();
  }
});

test("events past 7 days, and past the newest 10,000 of a user, are neither listed nor kept", async () => {
  const h = await startHarness();
  const api = apiAs(() => h.server.url);
  try {
    await h.server.stop();
    // A file as a server that ran for weeks left it: 5 events from 8 days ago, then 10,002 recent.
    const db = new DatabaseSync(join(h.dataDir, "harness.db"));
    const insert = db.prepare("INSERT INTO feed_events (number, user_id, at, type, data) VALUES (?, ?, ?, ?, ?)");
    const old = Date.now() - 8 * 24 * 60 * 60_000;
    const recent = Date.now() - 60 * 60_000;
    db.exec("BEGIN");
    for (let i = 1; i <= 5; i++) insert.run(i, "alice", old + i, "session.created", JSON.stringify({ session_id: `old-${i}` }));
    for (let i = 1; i <= 10_002; i++) insert.run(5 + i, "alice", recent + i, "session.created", JSON.stringify({ session_id: `recent-${i}` }));
    insert.run(20_000, "bob", old, "session.created", JSON.stringify({ session_id: "bobs-old" }));
    db.exec("COMMIT");
    db.close();
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });

    const listed = await listOf(api, "limit=1&offset=9999");
    assert.equal(listed.total, 10_000);
    assert.equal(listed.has_more, false);
    assert.equal(listed.data[0].data.session_id, "recent-3", "the oldest recent ones are past the bound");
    assert.equal((await listOf(apiAs(() => h.server.url, "bob"))).total, 0);

    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const newest = await listOf(api, "limit=1");
    assert.equal(newest.total, 10_000);
    assert.equal(newest.data[0].data.session_id, session.id);
    assert.ok(Number(newest.data[0].id.split("-").at(-1)) > 20_000, "numbered on past every event stored");

    const file = new DatabaseSync(join(h.dataDir, "harness.db"), { readOnly: true });
    const kept = file.prepare("SELECT user_id, COUNT(*) AS n, MIN(at) AS first FROM feed_events GROUP BY user_id").all() as { user_id: string; n: number; first: number }[];
    file.close();
    assert.deepEqual(kept.map((row) => [row.user_id, row.n]), [["alice", 10_000]], "the file holds no more than is listed");
    assert.ok(kept[0].first > old + 1000);
  } finally {
    await h.close();
  }
});

test("while another process holds the database's lock, events are still listed and streamed, the failure logged, and stored once it is released", async () => {
  const h = await startHarness();
  const api = apiAs(() => h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const lock = await holdLock(join(h.dataDir, "harness.db"));
    try {
      const live = await api(`${V1}/events/stream`);
      const coming = takeSse(live, 1);
      await installSkill(h.server.url, session.id);
      assert.equal((await coming)[0].data.type, "skill.installed");
      assert.deepEqual((await listOf(api)).data.map((event) => event.type), ["skill.installed", "session.created"]);
      await h.server.waitForOutput(/cannot write the event feed's events \(.*locked/);
    } finally {
      await lock.release();
    }
    await until("the events are written", () => /the event feed's events are written again \(1 waited\)/.test(h.server.output()));
    const before = await listOf(api);
    await h.server.stop("SIGKILL");
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });
    assert.deepEqual(await listOf(api), before);
  } finally {
    await h.close();
  }
});
