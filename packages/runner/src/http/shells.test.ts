// GET /shells and POST /shells/kill: the conversation's background shells, reached with no run under
// way (a long poll for changes, and kills), of the right workspace on a runner host.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { BackgroundShellInfo, KillShellAnswer } from "@harness/protocol";
import type { ConversationShells } from "@harness/agent/resources";
import { RunnerHttpError } from "../client/client.ts";
import { createRunnerHost } from "../host.ts";
import { fakeBackend, listen, post, startRunner, tempDir, usage, waitFor } from "../test-support.ts";
import { createServer } from "node:http";
import { createRunnerClient, openWorkspace } from "../client/client.ts";

/** Shells a test changes by hand, as a conversation's would change. */
function fakeShells(ids: string[]) {
  const listeners = new Set<() => void>();
  const shells: BackgroundShellInfo[] = ids.map((id, i) => ({ id, command: `sleep ${i}`, status: "running", startedAt: 1000 + i }));
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const access: ConversationShells = {
    list: () => shells.map((s) => ({ ...s })),
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    kill(shellId): KillShellAnswer {
      const shell = shells.find((s) => s.id === shellId);
      if (!shell) return { outcome: "unknown", message: `No background shell "${shellId}".` };
      if (shell.status !== "running") return { outcome: "not-running", message: `Background shell ${shellId} is not running (${shell.status}): nothing to kill.` };
      shell.status = "killed";
      changed();
      return { outcome: "killed", message: `Killed background shell ${shellId}: ${shell.command}` };
    },
    full: () => undefined,
  };
  return {
    access,
    watchers: () => listeners.size,
    end(id: string, exitCode: number) {
      const shell = shells.find((s) => s.id === id)!;
      shell.status = exitCode === 0 ? "completed" : "failed";
      shell.exitCode = exitCode;
      shell.endedAt = 2000;
      changed();
    },
  };
}

const ok = async () => ({ ok: true as const, result: "ok", usage, transcript: [] });

test("GET /shells answers the list at once; with its version it waits until a shell ends, or answers the same version after the wait", async (t) => {
  const shells = fakeShells(["aaaaaa", "bbbbbb"]);
  const backend = fakeBackend(ok, { shells: () => shells.access });
  const { client } = await startRunner(t, { backend, shellsWaitMs: 300 });
  const first = await client.shells(undefined);
  assert.deepEqual(first.shells.map((s) => [s.id, s.status]), [["aaaaaa", "running"], ["bbbbbb", "running"]]);
  assert.match(first.version, /^[0-9a-f]{16}$/);

  // Nothing changes: the same version once the wait is over, and nobody watches any more.
  const same = await client.shells(first.version);
  assert.equal(same.version, first.version);
  assert.equal(shells.watchers(), 0);

  // A shell ends while the request waits: the answer comes with the new list.
  const waiting = client.shells(first.version);
  setTimeout(() => shells.end("aaaaaa", 0), 20);
  const changed = await waiting;
  assert.notEqual(changed.version, first.version);
  assert.deepEqual(changed.shells[0], { id: "aaaaaa", command: "sleep 0", status: "completed", startedAt: 1000, endedAt: 2000, exitCode: 0 });
  // An older version than the list's: answered at once.
  assert.deepEqual(await client.shells(first.version), changed);
});

test("a backend with no shells (yet) lists none; bad versions and methods are refused naming the problem", async (t) => {
  const { url, client } = await startRunner(t, { backend: fakeBackend(ok), shellsWaitMs: 50 });
  const none = await client.shells(undefined);
  assert.deepEqual(none.shells, []);
  assert.deepEqual((await client.shells(none.version)).shells, []);
  for (const bad of ["", "xyz", "0123456789abcdef0", "0123456789ABCDEF"]) {
    const res = await fetch(`${url}/shells`, { headers: { "x-harness-shells-after": bad } });
    assert.equal(res.status, 400, bad);
    assert.match(((await res.json()) as { error: string }).error, /^x-harness-shells-after: must be a version a GET \/shells answered \(16 hex digits\), got "/);
  }
  const posted = await post(`${url}/shells`, {});
  assert.equal(posted.status, 405);
  const got = await fetch(`${url}/shells/kill`);
  assert.equal(got.status, 405);
  assert.equal((await fetch(`${url}/shells?after=1`)).status, 400);
  const unknown = await post(`${url}/shells/kill`, { shellId: "aaaaaa" });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error, 'shellId: no background shell "aaaaaa" in this conversation');
});

test("POST /shells/kill stops a running shell with no run under way: 200 with what it did, 404 unknown, 409 not running, 400 a bad body; a watcher hears it", async (t) => {
  const shells = fakeShells(["aaaaaa", "bbbbbb"]);
  const { url, client } = await startRunner(t, { backend: fakeBackend(ok, { shells: () => shells.access }), shellsWaitMs: 10_000 });
  const { version } = await client.shells(undefined);
  const watching = client.shells(version);
  assert.equal(await client.killShell("bbbbbb"), "Killed background shell bbbbbb: sleep 1");
  assert.equal((await watching).shells[1]!.status, "killed");
  await assert.rejects(client.killShell("bbbbbb"), (e: unknown) => e instanceof RunnerHttpError && e.status === 409 && /is not running \(killed\)/.test(e.message));
  await assert.rejects(client.killShell("cccccc"), (e: unknown) => e instanceof RunnerHttpError && e.status === 404);
  for (const body of [{}, { shellId: "" }, { shellId: 3 }, { shellId: "aaaaaa", more: 1 }, { shellId: "x".repeat(300) }]) {
    const bad = await post(`${url}/shells/kill`, body);
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.match(bad.body.error ?? "", /shellId|more/, JSON.stringify(bad.body));
  }
});

test("on a runner host a workspace's shells are under its prefix; a waiting GET /shells keeps the process from idling out", async (t) => {
  const dir = tempDir(t);
  const shells = fakeShells(["aaaaaa"]);
  const host = createRunnerHost({ workspace: `${dir}/own`, backend: fakeBackend(ok, { shells: () => shells.access }), shellsWaitMs: 10_000 });
  const server = createServer((req, res) => host.handle(req, res));
  const url = await listen(server);
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await host.close();
  });
  const a = createRunnerClient(await openWorkspace(url, "a", { workspace: `${dir}/a` }));
  const { version, shells: listed } = await a.shells(undefined);
  assert.deepEqual(listed.map((s) => s.id), ["aaaaaa"]);
  assert.equal((await fetch(`${url}/workspaces/nope/shells`)).status, 404);
  assert.equal(host.isBusy(), false);
  const controller = new AbortController();
  const waiting = a.shells(version, controller.signal).catch(() => undefined);
  await waitFor(() => host.isBusy(), "the waiting GET /shells to count");
  controller.abort();
  await waiting;
  await waitFor(() => !host.isBusy(), "the GET /shells given up on to count no more");
});

test("a request to move a Bash call to the background past the limit of running shells is refused (409) saying so; the call is not asked", async (t) => {
  const shells = fakeShells(["aaaaaa"]);
  const full = "1 background shell is running already, the most one conversation may run at once (HARNESS_MAX_BACKGROUND_SHELLS=1).";
  let asked = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const backend = fakeBackend(
    async (_q, ctx) => {
      const stop = ctx.onBackground!(() => ++asked > 0);
      ctx.emit({ type: "tool.started", toolName: "Bash", toolUseId: "toolu_bash" });
      await held;
      stop();
      return { ok: true, result: "ok", usage, transcript: [] };
    },
    { movesToBackground: true, shells: () => ({ ...shells.access, full: () => full }) },
  );
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: new AbortController().signal })[Symbol.asyncIterator]();
  let requestId = "";
  for (;;) {
    const next = await iter.next();
    if (next.value?.type === "run.started") requestId = next.value.requestId;
    if (next.value?.type === "tool.started") break;
  }
  const refused = await post(`${url}/runs/${requestId}/background`, { toolUseId: "toolu_bash" });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error, `the Bash call goes on in the foreground: ${full}`);
  assert.equal(asked, 0);
  release();
  for (let next = await iter.next(); !next.done; next = await iter.next());
});
