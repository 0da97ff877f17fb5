// The Open Harness files domain against a run that swaps a directory of its workspace for a link
// out of it, again and again, while files in it are read, written, made and deleted: what was
// checked is what is worked on, so nothing outside is touched, whatever the timing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1, type Api } from "./open-harness-support.ts";

const SWAP_MS = 3000;
const onLinux = { skip: process.platform !== "linux" && "where an open file is, is asked of Linux's /proc" };

type Race = { api: Api; files: (rest: string, query?: string) => string; sessionId: string; workspace: string; outside: string };

/** A session whose workspace has "real" (a directory) and "link" (to a directory outside), and a
 * process that makes "d" the one, then the other, then nothing, for SWAP_MS (as a run's commands
 * could; `eachTime` is more of its script, run before each turn); `request` is sent six at a time
 * meanwhile. `check` is given what they answered (a count of each). */
async function race(prepare: (r: Race) => Promise<void>, eachTime: string, request: (r: Race, i: number) => Promise<string>, check: (r: Race, seen: Map<string, number>, said: string) => Promise<void>) {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const files = (rest: string, query = "") => `${V1}/files${rest}?session_id=${session.id}${query}`;
    await api(files("/keep.txt"), { method: "PUT", body: "k" });
    const r: Race = { api, files, sessionId: session.id, workspace: h.workspace("alice", session.id), outside };
    await mkdir(join(r.workspace, "real"));
    await symlink(outside, join(r.workspace, "link"));
    await prepare(r);
    const swapper = `const fs = require("fs"); process.chdir(${JSON.stringify(r.workspace)});
      const mv = (a, b) => { try { fs.renameSync(a, b); } catch { fs.rmSync("d", { recursive: true, force: true }); } };
      const relink = () => { if (!fs.lstatSync("link", { throwIfNoEntry: false })?.isSymbolicLink()) { fs.rmSync("link", { recursive: true, force: true }); fs.symlinkSync(${JSON.stringify(outside)}, "link"); } };
      for (const end = Date.now() + ${SWAP_MS}; Date.now() < end; ) {
        relink(); fs.mkdirSync("real", { recursive: true }); ${eachTime}
        mv("real", "d"); mv("d", "real"); mv("link", "d"); mv("d", "link");
      }`;
    const swapping = spawn(process.execPath, ["-e", swapper], { stdio: "inherit" });
    const exited = new Promise((resolve) => swapping.on("exit", resolve));
    const seen = new Map<string, number>();
    const started = Date.now();
    while (Date.now() - started < SWAP_MS - 300) {
      for (const answer of await Promise.all([0, 1, 2, 3, 4, 5].map((i) => request(r, i)))) seen.set(answer, (seen.get(answer) ?? 0) + 1);
    }
    await exited;
    const said = JSON.stringify(Object.fromEntries(seen));
    assert.ok(![...seen.keys()].some((answer) => / 500\b/.test(answer)), `no request failed for it: ${said}`);
    await check(r, seen, said);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
}

test("a directory swapped for a link out of the workspace while its files are read and written leads nothing out", onLinux, async () => {
  await race(
    async (r) => {
      await writeFile(join(r.outside, "x.txt"), "secret");
      await writeFile(join(r.workspace, "real", "x.txt"), "inside");
    },
    "",
    async ({ api, files }, i) => {
      if (i % 2) return `write ${(await api(files(`/d/w${i}.txt`), { method: "PUT", body: "written" })).status}`;
      const response = await api(files("/d/x.txt"));
      return `read ${response.status} ${response.status === 200 ? await response.text() : ""}`;
    },
    async ({ outside }, seen, said) => {
      assert.ok(seen.has("read 200 inside"), `the directory was read while it was one: ${said}`);
      assert.ok(!seen.has("read 200 secret"), `the file outside was never read: ${said}`);
      assert.deepEqual(await readdir(outside), ["x.txt"], `nothing was written outside: ${said}`);
    },
  );
});

test("a directory swapped for a link out of the workspace while what is in it is deleted deletes nothing outside", onLinux, async () => {
  await race(
    async ({ outside }) => {
      for (const name of ["x.txt", "sub/y.txt", "sub/deeper/z.txt"]) {
        await mkdir(join(outside, name, ".."), { recursive: true });
        await writeFile(join(outside, name), "theirs");
      }
    },
    `fs.mkdirSync("real/sub/deeper", { recursive: true }); fs.writeFileSync("real/x.txt", "mine"); fs.writeFileSync("real/sub/deeper/z.txt", "mine");`,
    async ({ api, files }, i) => `delete ${(await api(i % 2 ? files("/d/sub", "&recursive=true") : files("/d/x.txt"), { method: "DELETE" })).status}`,
    async ({ api, files, outside, workspace }, _seen, said) => {
      assert.deepEqual((await readdir(outside, { recursive: true })).sort(), ["sub", "sub/deeper", "sub/deeper/z.txt", "sub/y.txt", "x.txt"], `nothing outside was deleted: ${said}`);
      await api(files("/real/sub/deeper/z.txt"), { method: "PUT", body: "mine" });
      assert.equal((await api(files("/real/sub", "&recursive=true"), { method: "DELETE" })).status, 204, "what is inside is deleted");
      assert.ok(!(await readdir(join(workspace, "real"))).includes("sub"));
    },
  );
});

test("a directory swapped for a link out of the workspace while directories are made in it makes none outside", onLinux, async () => {
  await race(
    async ({ outside }) => writeFile(join(outside, "x.txt"), "theirs"),
    "",
    async ({ api, files, sessionId }, i) =>
      i % 2
        ? `write ${(await api(files(`/d/made${i}/w.txt`), { method: "PUT", body: "w" })).status}`
        : `mkdir ${(await api(`${V1}/files/mkdir`, { method: "POST", body: JSON.stringify({ session_id: sessionId, path: `d/made${i}/deeper` }) })).status}`,
    async ({ outside }, _seen, said) => assert.deepEqual(await readdir(outside), ["x.txt"], `nothing was made outside: ${said}`),
  );
});

test("a directory swapped for a link out of the workspace while the workspace is searched and downloaded shows nothing outside", onLinux, async () => {
  await race(
    async ({ outside, workspace }) => {
      await writeFile(join(outside, "x.txt"), "secret");
      await writeFile(join(outside, "only-outside.txt"), "secret");
      await writeFile(join(workspace, "real", "x.txt"), "inside");
    },
    "",
    async ({ api, sessionId }, i) => {
      const body = (more: Record<string, unknown>) => ({ method: "POST", body: JSON.stringify({ session_id: sessionId, ...more }) });
      if (i % 2) {
        const response = await api(`${V1}/files/search`, body({ glob: "**", grep: "secret|inside" }));
        const found = response.status === 200 ? ((await response.json()).matches as { file: { path: string }; line_matches: { content: string }[] }[]) : [];
        return `search ${response.status} ${found.map((m) => `${m.file.path}:${m.line_matches.map((l) => l.content)}`).sort().join(" ")}`;
      }
      const response = await api(`${V1}/files/download-batch`, body({ paths: ["/"] }));
      const zip = Buffer.from(await response.arrayBuffer());
      return `zip ${response.status} ${zip.includes("only-outside") ? "only-outside" : ""}`;
    },
    async (_r, seen, said) => {
      assert.ok([...seen.keys()].some((answer) => answer.includes("real/x.txt:inside")), `the workspace was searched: ${said}`);
      assert.ok(![...seen.keys()].some((answer) => /only-outside|secret/.test(answer)), `nothing outside was shown: ${said}`);
    },
  );
});

test("a directory swapped for a link out of the workspace while its files are read and written answers the type and size of the workspace's file, never of one outside", onLinux, async () => {
  await race(
    async ({ outside, workspace }) => {
      // No extension: the type is told by the bytes, the inside one's text, the outside one's not.
      await writeFile(join(outside, "data"), Buffer.alloc(100, 0));
      for (const i of [1, 3, 5]) await writeFile(join(outside, `w${i}`), Buffer.alloc(100, 0));
      await writeFile(join(workspace, "real", "data"), "inside");
    },
    "",
    async ({ api, files }, i) => {
      if (i % 2) {
        const response = await api(files(`/d/w${i}`), { method: "PUT", body: "written" });
        const written = response.ok ? (await response.json()).file : {};
        return `write ${response.status} ${written.size_bytes ?? ""} ${written.mime_type ?? ""}`;
      }
      const response = await api(files("/d/data"));
      return `read ${response.status} ${response.headers.get("content-type")} ${response.status === 200 ? await response.text() : ""}`;
    },
    async (_r, seen, said) => {
      assert.ok(seen.has("read 200 text/plain; charset=utf-8 inside"), `the file was read while its directory was one: ${said}`);
      assert.ok([...seen.keys()].some((answer) => /^write 20[01] 7 text\/plain$/.test(answer)), `files were written while the directory was one: ${said}`);
      const other = [...seen.keys()].filter((answer) => /^read 200/.test(answer) ? answer !== "read 200 text/plain; charset=utf-8 inside" : /^write 20[01]/.test(answer) && !/ 7 text\/plain$/.test(answer));
      assert.deepEqual(other, [], `every answer is of the file inside: ${said}`);
    },
  );
});

test("a directory swapped for a link out of the workspace while it is listed lists nothing outside", onLinux, async () => {
  await race(
    async ({ outside, workspace }) => {
      await writeFile(join(outside, "only-outside.txt"), "secret");
      await writeFile(join(workspace, "real", "x.txt"), "inside");
    },
    "",
    async ({ api, files }, i) => {
      const response = await api(i % 2 ? files("", "&path=/&recursive=true") : files("", "&path=d"));
      const listed = response.status === 200 ? ((await response.json()).files as { path: string }[]).map((file) => file.path) : [];
      return `list ${response.status} ${listed.filter((path) => /x\.txt|only-outside/.test(path)).sort().join(" ")}`;
    },
    async (_r, seen, said) => {
      assert.ok(seen.has("list 200 d/x.txt"), `the directory was listed while it was one: ${said}`);
      assert.ok(![...seen.keys()].some((answer) => answer.includes("only-outside")), `nothing outside was listed: ${said}`);
    },
  );
});

test("a directory swapped for a link out of the workspace while files and folders are made in it never answers by what is outside", onLinux, async () => {
  let made = 0;
  await race(
    // Outside, a file of each name made inside: none is ever there inside before it is made.
    async ({ outside }) => {
      for (let n = 0; n < 20_000; n++) await writeFile(join(outside, `n${n}`), "theirs");
    },
    "",
    async ({ api, files, sessionId }, i) => {
      const name = `n${made++}`;
      const response =
        i % 2
          ? await api(`${V1}/files/mkdir`, { method: "POST", body: JSON.stringify({ session_id: sessionId, path: `d/${name}` }) })
          : await api(files(`/d/${name}`), { method: "PUT", body: "w" });
      const body = await response.json();
      const what = response.ok ? `created ${body.created}` : /^path: "d\/n\d+" is a (file|directory)/.test(body.error.message) ? "there already" : body.error.code;
      return `${i % 2 ? "mkdir" : "write"} ${response.status} ${what}`;
    },
    async (_r, seen, said) => {
      assert.ok(seen.has("write 201 created true") && seen.has("mkdir 201 created true"), `files and folders were made while the directory was one: ${said}`);
      const other = [...seen.keys()].filter((answer) => /created false|file_exists|there already/.test(answer));
      assert.deepEqual(other, [], `none was found there before it was made: ${said}`);
    },
  );
});
