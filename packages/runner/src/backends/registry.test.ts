import { test } from "node:test";
import assert from "node:assert/strict";
import { headlessContext, type Backend } from "../backend.ts";
import { collect, fakeBackend, never, post, startRunner, usage } from "../test-support.ts";
import { defaultBackendName, lazyBackend, SANDBOX_HIDE_ENV, sandboxHiddenPaths, standardBackends } from "./registry.ts";

function named(name: string): Backend & { runs: unknown[] } {
  return { ...fakeBackend(async () => ({ ok: true, result: `ran on ${name}`, usage, transcript: [] })), name };
}

test("a query runs on the backend it names, else on the runner's default", async (t) => {
  const builtin = named("builtin");
  const claude = named("claude-code");
  const { client } = await startRunner(t, { backends: [builtin, claude], defaultBackend: "claude-code" });
  const resultOf = async (backend?: "builtin" | "claude-code") => {
    const last = (await collect(client.query({ prompt: "p", ...(backend && { backend }) }, { signal: never() }))).at(-1);
    return last?.type === "run.completed" ? last.result : last?.type;
  };
  assert.equal(await resultOf(), "ran on claude-code");
  assert.equal(await resultOf("builtin"), "ran on builtin");
  assert.equal(await resultOf("claude-code"), "ran on claude-code");
  assert.equal(builtin.runs.length, 1);
  assert.equal(claude.runs.length, 2);
});

test("an unknown backend gets 400 naming it, and nothing runs", async (t) => {
  const builtin = named("builtin");
  const { url } = await startRunner(t, { backends: [builtin], defaultBackend: "builtin" });
  const unknown = await post(`${url}/query`, { prompt: "p", backend: "nope" });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.error ?? "", /^backend: /);
  const missing = await post(`${url}/query`, { prompt: "p", backend: "claude-code" });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error, 'backend: this runner has no backend "claude-code" (it has builtin)');
  assert.equal(builtin.runs.length, 0);
});

test("HARNESS_BACKEND picks the default backend; a bad value is named", () => {
  assert.deepEqual(defaultBackendName({}), { ok: true, name: "builtin" });
  assert.deepEqual(defaultBackendName({ HARNESS_BACKEND: "claude-code" }), { ok: true, name: "claude-code" });
  assert.deepEqual(defaultBackendName({ HARNESS_BACKEND: "gpt" }), { ok: false, error: 'HARNESS_BACKEND must be one of builtin, claude-code, got "gpt"' });
  assert.deepEqual(
    standardBackends().map((b) => b.name),
    ["builtin", "claude-code"],
  );
});

test("a lazy backend loads its module on first use only, once, and disposes only what it loaded", async () => {
  let loads = 0;
  let disposed = 0;
  const make = () =>
    lazyBackend("x", async () => {
      loads++;
      return { ...named("x"), dispose: async () => void disposed++ };
    });
  const unused = make();
  await unused.dispose?.();
  assert.equal(loads, 0);

  const used = make();
  const ctx = headlessContext({ signal: never(), emit: () => {}, workspace: "/tmp" });
  await used.run({ prompt: "p" }, ctx);
  await used.run({ prompt: "p" }, ctx);
  assert.equal(loads, 1);
  assert.equal(await used.rewind?.({ userMessageId: "u", dryRun: true, workspace: "/tmp", stateDir: "/tmp/s" }), undefined, "no rewind of its own");
  await used.dispose?.();
  assert.equal(disposed, 1);
});

test("the standard backends say before loading when they take file checkpoints, as the loaded ones do", async () => {
  const [lazyBuiltin, lazyClaude] = standardBackends();
  assert.equal(lazyBuiltin.checkpointsOnChange, true);
  assert.equal(lazyClaude.checkpointsOnChange, undefined);
  const { builtinBackend } = await import("./builtin.ts");
  assert.equal(builtinBackend().checkpointsOnChange, lazyBuiltin.checkpointsOnChange);
});

test("the paths the sandbox hides are the absolute ones of HARNESS_SANDBOX_HIDE; empty and relative entries are left out", () => {
  assert.deepEqual(sandboxHiddenPaths({}), []);
  assert.deepEqual(sandboxHiddenPaths({ [SANDBOX_HIDE_ENV]: "" }), []);
  assert.deepEqual(sandboxHiddenPaths({ [SANDBOX_HIDE_ENV]: "/srv/harness::data/rel:./x:/tmp/y" }), ["/srv/harness", "/tmp/y"]);
});
