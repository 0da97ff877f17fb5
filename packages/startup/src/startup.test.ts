import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { manifestLine, stampOf } from "@harness/llm/bundled-require";
import { waitFor } from "@harness/test-utils";
import { BUNDLER, failedLock, lockState, RETRY_AFTER_MS, type BundlePlace } from "./places.ts";
import { loadEntry } from "./startup.ts";

const ran = ((globalThis as { startupTestRan?: string[] }).startupTestRan ??= []);

/** A place of its own: an entry and a bundle that each say they ran, and a builder that leaves a
 * file `built` behind. The bundle lists the entry (and the bundler) among the files it holds, so
 * editing the entry makes it stale. */
function place(t: { after(fn: () => void): void }, name: string, bundleCode = `globalThis.startupTestRan.push("${name} bundle");`) {
  const dir = mkdtempSync(join(tmpdir(), "harness-startup-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const at: BundlePlace = { bundle: join(dir, "b.mjs"), lock: join(dir, "b.mjs.lock"), entry: join(dir, "entry.mjs"), builder: join(dir, "builder.mjs") };
  writeFileSync(at.entry, `globalThis.startupTestRan.push("${name} sources");\n`);
  writeFileSync(at.builder, `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(dir, "built"))}, String(process.pid));\n`);
  writeFileSync(at.bundle, manifestLine([stampOf(at.entry)!, stampOf(BUNDLER)!]) + bundleCode + "\n");
  const built = () => existsSync(join(dir, "built"));
  return { at, dir, built };
}

/** Long enough for a builder that was started to have written its file (a node process starts in
 * well under this); the tests that expect one wait for it instead. */
const NO_BUILDER_MS = 1_500;

test("a fresh bundle runs in place of the sources, and nothing is rebuilt", async (t) => {
  const { at, built } = place(t, "fresh");
  await loadEntry(at, {});
  assert.deepEqual(ran.filter((r) => r.startsWith("fresh ")), ["fresh bundle"]);
  await sleep(NO_BUILDER_MS);
  assert.equal(built(), false);
});

test("an edited source makes the start load the sources and rebuild the bundle in the background", async (t) => {
  const { at, built } = place(t, "stale");
  writeFileSync(at.entry, `globalThis.startupTestRan.push("stale sources"); // edited\n`);
  await loadEntry(at, {});
  assert.deepEqual(ran.filter((r) => r.startsWith("stale ")), ["stale sources"]);
  await waitFor(built, "the builder to run", { timeoutMs: 10_000 });
});

test("HARNESS_BUNDLE=0 loads the sources even beside a fresh bundle, and builds nothing", async (t) => {
  const { at, built } = place(t, "off");
  await loadEntry(at, { HARNESS_BUNDLE: "0" });
  assert.deepEqual(ran.filter((r) => r.startsWith("off ")), ["off sources"]);
  await sleep(NO_BUILDER_MS);
  assert.equal(built(), false);
});

test("a stale bundle is not rebuilt while a live process writes it, nor soon after a failed build; an old failure is tried again", async (t) => {
  const writing = place(t, "writing");
  writeFileSync(writing.at.entry, "globalThis.startupTestRan.push('writing sources'); // edited\n");
  writeFileSync(writing.at.lock, String(process.pid));
  assert.deepEqual(lockState(writing.at.lock), { kind: "building", pid: process.pid });
  await loadEntry(writing.at, {});

  const failed = place(t, "failed");
  writeFileSync(failed.at.entry, "globalThis.startupTestRan.push('failed sources'); // edited\n");
  writeFileSync(failed.at.lock, failedLock("Could not resolve \"./gone.ts\""));
  assert.equal(lockState(failed.at.lock).kind, "failed");
  await loadEntry(failed.at, {});

  const old = place(t, "old");
  writeFileSync(old.at.entry, "globalThis.startupTestRan.push('old sources'); // edited\n");
  writeFileSync(old.at.lock, failedLock("an earlier failure", Date.now() - RETRY_AFTER_MS - 1_000));
  assert.deepEqual(lockState(old.at.lock), { kind: "none" });
  await loadEntry(old.at, {});

  assert.deepEqual(ran.filter((r) => /^(writing|failed|old) /.test(r)), ["writing sources", "failed sources", "old sources"]);
  await waitFor(old.built, "the builder to try again", { timeoutMs: 10_000 });
  await sleep(NO_BUILDER_MS);
  assert.equal(writing.built(), false);
  assert.equal(failed.built(), false);
});

test("a bundle written for another checkout (its files elsewhere, the node_modules shared) is not taken for this one's", async (t) => {
  const here = place(t, "here");
  const elsewhere = place(t, "elsewhere");
  writeFileSync(here.at.bundle, manifestLine([stampOf(elsewhere.at.entry)!, stampOf(BUNDLER)!]) + `globalThis.startupTestRan.push("here bundle");\n`);
  await loadEntry(here.at, {});
  assert.deepEqual(ran.filter((r) => r.startsWith("here ")), ["here sources"]);
  await waitFor(here.built, "the builder to run", { timeoutMs: 10_000 });
});

test("a bundle another version of the bundler wrote (not holding this one among its files) is stale: the sources load and it is written again", async (t) => {
  const prior = place(t, "prior");
  writeFileSync(prior.at.bundle, manifestLine([stampOf(prior.at.entry)!]) + `globalThis.startupTestRan.push("prior bundle");\n`);
  await loadEntry(prior.at, {});
  assert.deepEqual(ran.filter((r) => r.startsWith("prior ")), ["prior sources"]);
  await waitFor(prior.built, "the builder to run", { timeoutMs: 10_000 });
});

test("a lock left by a builder that died does not stop the next build", async (t) => {
  const { at, built } = place(t, "dead");
  writeFileSync(at.entry, "globalThis.startupTestRan.push('dead sources'); // edited\n");
  writeFileSync(at.lock, "2147483646");
  await loadEntry(at, {});
  await waitFor(built, "the builder to run", { timeoutMs: 10_000 });
});

test("a bundle whose files are gone or damaged is passed over for the sources; one whose code throws is not run twice", async (t) => {
  const gone = place(t, "gone", `import "./chunk-gone.mjs";`);
  await loadEntry(gone.at, {});
  const damaged = place(t, "damaged", `export const = ;`);
  await loadEntry(damaged.at, {});
  assert.deepEqual(ran.filter((r) => /^(gone|damaged) /.test(r)), ["gone sources", "damaged sources"]);

  const throws = place(t, "throws", `globalThis.startupTestRan.push("throws bundle"); throw new Error("the CLI failed as it loaded");`);
  await assert.rejects(loadEntry(throws.at, {}), /the CLI failed as it loaded/);
  assert.deepEqual(ran.filter((r) => r.startsWith("throws ")), ["throws bundle"]);
});

test("the code a fresh bundle runs knows it runs from the bundle, through a copy of its own of from-bundle.ts; the sources' code knows it does not", async (t) => {
  const copy = join(mkdtempSync(join(tmpdir(), "harness-startup-copy-")), "from-bundle.ts");
  t.after(() => rmSync(dirname(copy), { recursive: true, force: true }));
  copyFileSync(fileURLToPath(new URL("./from-bundle.ts", import.meta.url)), copy);
  const says = (name: string, from: string) => `const { startedFromBundle } = await import(${JSON.stringify(pathToFileURL(from).href)}); globalThis.startupTestRan.push("${name} " + (startedFromBundle() ?? "sources"));`;
  const bundled = place(t, "marked", says("marked", copy));
  await loadEntry(bundled.at, {});
  assert.deepEqual(ran.filter((r) => r.startsWith("marked ")), [`marked ${bundled.at.bundle}`]);
  const sources = place(t, "unmarked");
  writeFileSync(sources.at.entry, says("unmarked", copy));
  await loadEntry(sources.at, { HARNESS_BUNDLE: "0" });
  assert.deepEqual(ran.filter((r) => r.startsWith("unmarked ")), ["unmarked sources"]);
});
