// The Open Harness files domain against a run that swaps a directory of its workspace for a link
// out of it, again and again, while files in it are read and written: what was checked is what is
// opened, so nothing outside is read or written, whatever the timing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const SWAP_MS = 3000;

test("a directory swapped for a link out of the workspace while its files are read and written leads nothing out", { skip: process.platform !== "linux" && "the open file's place is asked of Linux's /proc" }, async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    await writeFile(join(outside, "x.txt"), "secret");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string) => `${V1}/files${rest}?session_id=${session.id}`;
    await api(files("/keep.txt"), { method: "PUT", body: "k" });
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, "real"));
    await writeFile(join(workspace, "real", "x.txt"), "inside");
    await symlink(outside, join(workspace, "link"));
    // As a run's commands could: "d" is the directory, then the link, then nothing, over and over.
    const swapper = `const fs = require("fs"); process.chdir(${JSON.stringify(workspace)});
      const mv = (a, b) => { try { fs.renameSync(a, b); } catch { fs.rmSync("d", { recursive: true, force: true }); } };
      for (const end = Date.now() + ${SWAP_MS}; Date.now() < end; ) { mv("real", "d"); mv("d", "real"); mv("link", "d"); mv("d", "link"); }`;
    const swapping = spawn(process.execPath, ["-e", swapper], { stdio: "inherit" });
    const exited = new Promise((resolve) => swapping.on("exit", resolve));
    const seen = new Map<string, number>();
    const started = Date.now();
    while (Date.now() - started < SWAP_MS - 300) {
      const answers = await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (i) => {
          const response = i % 2 ? await api(files(`/d/w${i}.txt`), { method: "PUT", body: "written" }) : await api(files("/d/x.txt"));
          return `${i % 2 ? "write" : "read"} ${response.status} ${i % 2 || response.status !== 200 ? "" : await response.text()}`;
        }),
      );
      for (const answer of answers) seen.set(answer, (seen.get(answer) ?? 0) + 1);
    }
    await exited;
    const said = JSON.stringify(Object.fromEntries(seen));
    assert.ok(seen.has("read 200 inside"), `the directory was read while it was one: ${said}`);
    assert.ok(!seen.has("read 200 secret"), `the file outside was never read: ${said}`);
    assert.deepEqual(await readdir(outside), ["x.txt"], `nothing was written outside: ${said}`);
    assert.ok(![...seen.keys()].some((answer) => / 500 /.test(answer)), `no request failed for it: ${said}`);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});

test("a directory swapped for a link out of the workspace while what is in it is deleted deletes nothing outside", { skip: process.platform !== "linux" && "the open file's place is asked of Linux's /proc" }, async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    for (const name of ["x.txt", "sub/y.txt", "sub/deeper/z.txt"]) {
      await mkdir(join(outside, name, ".."), { recursive: true });
      await writeFile(join(outside, name), "theirs");
    }
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string, query = "") => `${V1}/files${rest}?session_id=${session.id}${query}`;
    await api(files("/keep.txt"), { method: "PUT", body: "k" });
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, "real"));
    await symlink(outside, join(workspace, "link"));
    const swapper = `const fs = require("fs"); process.chdir(${JSON.stringify(workspace)});
      const mv = (a, b) => { try { fs.renameSync(a, b); } catch { fs.rmSync("d", { recursive: true, force: true }); fs.mkdirSync("real", { recursive: true }); } };
      for (const end = Date.now() + ${SWAP_MS}; Date.now() < end; ) {
        fs.mkdirSync("real/sub/deeper", { recursive: true }); fs.writeFileSync("real/x.txt", "mine"); fs.writeFileSync("real/sub/deeper/z.txt", "mine");
        mv("real", "d"); mv("d", "real"); mv("link", "d"); mv("d", "link");
      }`;
    const swapping = spawn(process.execPath, ["-e", swapper], { stdio: "inherit" });
    const exited = new Promise((resolve) => swapping.on("exit", resolve));
    const seen = new Map<string, number>();
    const started = Date.now();
    while (Date.now() - started < SWAP_MS - 300) {
      const answers = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          const response = await api(i % 2 ? files("/d/sub", "&recursive=true") : files("/d/x.txt"), { method: "DELETE" });
          return `delete ${response.status}`;
        }),
      );
      for (const answer of answers) seen.set(answer, (seen.get(answer) ?? 0) + 1);
    }
    await exited;
    const said = JSON.stringify(Object.fromEntries(seen));
    await api(files("/real/sub/deeper/z.txt"), { method: "PUT", body: "mine" });
    assert.equal((await api(files("/real/sub", "&recursive=true"), { method: "DELETE" })).status, 204, "what is inside is deleted");
    assert.ok(!(await readdir(join(workspace, "real"))).includes("sub"));
    assert.deepEqual((await readdir(outside, { recursive: true })).sort(), ["sub", "sub/deeper", "sub/deeper/z.txt", "sub/y.txt", "x.txt"], `nothing outside was deleted: ${said}`);
    assert.ok(![...seen.keys()].some((answer) => / 500/.test(answer)), `no request failed for it: ${said}`);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});

test("a directory swapped for a link out of the workspace while directories are made in it makes none outside", { skip: process.platform !== "linux" && "the open file's place is asked of Linux's /proc" }, async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    await writeFile(join(outside, "x.txt"), "theirs");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string) => `${V1}/files${rest}?session_id=${session.id}`;
    await api(files("/keep.txt"), { method: "PUT", body: "k" });
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, "real"));
    await symlink(outside, join(workspace, "link"));
    const swapper = `const fs = require("fs"); process.chdir(${JSON.stringify(workspace)});
      const mv = (a, b) => { try { fs.renameSync(a, b); } catch { fs.rmSync("d", { recursive: true, force: true }); } };
      const relink = () => { if (!fs.lstatSync("link", { throwIfNoEntry: false })?.isSymbolicLink()) { fs.rmSync("link", { recursive: true, force: true }); fs.symlinkSync(${JSON.stringify(outside)}, "link"); } };
      for (const end = Date.now() + ${SWAP_MS}; Date.now() < end; ) { relink(); fs.mkdirSync("real", { recursive: true }); mv("real", "d"); mv("d", "real"); mv("link", "d"); mv("d", "link"); }`;
    const swapping = spawn(process.execPath, ["-e", swapper], { stdio: "inherit" });
    const exited = new Promise((resolve) => swapping.on("exit", resolve));
    const seen = new Map<string, number>();
    const started = Date.now();
    while (Date.now() - started < SWAP_MS - 300) {
      const answers = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          const response = i % 2 ? await api(files(`/d/made${i}/w.txt`), { method: "PUT", body: "w" }) : await api(`${V1}/files/mkdir`, { method: "POST", body: JSON.stringify({ session_id: session.id, path: `d/made${i}/deeper` }) });
          return `${i % 2 ? "write" : "mkdir"} ${response.status}`;
        }),
      );
      for (const answer of answers) seen.set(answer, (seen.get(answer) ?? 0) + 1);
    }
    await exited;
    const said = JSON.stringify(Object.fromEntries(seen));
    assert.deepEqual(await readdir(outside), ["x.txt"], `nothing was made outside: ${said}`);
    assert.ok(![...seen.keys()].some((answer) => / 500/.test(answer)), `no request failed for it: ${said}`);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});
