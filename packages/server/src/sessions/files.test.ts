// GET /sessions/:id/files: a session's workspace files for completion, with real directories; what
// a prefix may name is checked, and nothing outside the workspace is listed, not even through a link.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WALK_LIMIT } from "@harness/agent/path-matches";
import { sessionFiles } from "./files.ts";
import { call, withFakeServer } from "../test-helpers.ts";

const files = (session: string, query: string) => `/sessions/${session}/files?userId=alice${query}`;

test("the files of a session's own workspace: those starting with the prefix, folders with a slash, hidden ones only when asked", async () => {
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  await writeFile(join(outside, "secret.txt"), "x");
  try {
    await withFakeServer({}, async (server, _runners, dataDir) => {
      assert.equal((await call(server, "POST", "/sessions", { userId: "alice", sessionId: "s1" })).status, 201);
      assert.deepEqual(await call(server, "GET", files("s1", "&prefix=")), { status: 200, body: { paths: [], fuzzy: false } }, "a workspace not made yet holds nothing");
      const workspace = join(dataDir, "workspaces", "alice", "s1");
      await mkdir(join(workspace, "src", "lib"), { recursive: true });
      await mkdir(join(workspace, "node_modules"));
      await writeFile(join(workspace, "src", "chat.ts"), "");
      await writeFile(join(workspace, "src", "chat two.ts"), "");
      await writeFile(join(workspace, "src", ".env"), "");
      await writeFile(join(workspace, "README.md"), "");
      await symlink(outside, join(workspace, "out"));
      await symlink(join(outside, "secret.txt"), join(workspace, "src", "secret.txt"));
      await symlink(join(workspace, "src", "lib"), join(workspace, "src", "lib-link"));
      await symlink(join(workspace, "gone"), join(workspace, "src", "dangling"));

      const list = async (prefix: string) => (await call(server, "GET", files("s1", `&prefix=${encodeURIComponent(prefix)}`))).body.paths;
      assert.deepEqual(await list(""), ["README.md", "src/"], "no link out, no node_modules unless named");
      assert.deepEqual(await list("src/"), ["src/chat two.ts", "src/chat.ts", "src/lib/", "src/lib-link/"]);
      assert.deepEqual(await list("src/ch"), ["src/chat two.ts", "src/chat.ts"]);
      assert.deepEqual(await list("src/."), ["src/.env"]);
      assert.deepEqual(await list("node_modules"), ["node_modules/"]);
      assert.deepEqual(await list("out/"), [], "a folder through a link that leads out is not listed");
      assert.deepEqual(await list("out/secret"), []);
      assert.deepEqual(await list("missing/"), [], "a missing folder is an empty list");
      assert.deepEqual(await list("README.md/"), []);
      assert.deepEqual((await call(server, "GET", files("s1", ""))).body, { paths: ["README.md", "src/"], fuzzy: false }, "no prefix: the workspace's top");

      // Bounded: a folder of many entries answers at most 200 of them.
      await mkdir(join(workspace, "many"));
      await Promise.all(Array.from({ length: 1_000 }, (_, i) => writeFile(join(workspace, "many", `f${String(i).padStart(4, "0")}`), "")));
      const many = await list("many/");
      assert.equal(many.length, 200);
      assert.equal(many[0], "many/f0000");
    });
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

test("bad prefixes are answered 400 naming what is wrong; another user's session is not found", async () => {
  await withFakeServer({}, async (server) => {
    await call(server, "POST", "/sessions", { userId: "alice", sessionId: "s1" });
    const bad = async (query: string) => {
      const answer = await call(server, "GET", files("s1", query));
      assert.equal(answer.status, 400, query);
      return answer.body.error as string;
    };
    assert.match(await bad("&prefix=/etc/"), /^prefix: .*not absolute/);
    assert.match(await bad("&prefix=../x"), /^prefix: .*"\.\." segments/);
    assert.match(await bad("&prefix=src/../../x"), /"\.\." segments/);
    assert.match(await bad("&prefix=a%00b"), /^prefix: must not contain NUL/);
    assert.match(await bad(`&prefix=${"a".repeat(4_097)}`), /^prefix: must be at most 4096 bytes/);
    assert.match(await bad("&prefix=a&prefix=b"), /^prefix: is given 2 times/);
    assert.match(await bad("&prefix=~/notes"), /^prefix: .*"~\/" names a home, which the server does not offer/);
    assert.equal((await call(server, "GET", "/sessions/s1/files")).status, 400, "no user");
    assert.deepEqual(await call(server, "GET", "/sessions/s1/files?userId=bob&prefix="), { status: 404, body: { error: 'no session "s1"' } });
    assert.equal((await call(server, "GET", files("nope", ""))).status, 404);
  });
});

test("on a server with a project, a session's files are the project's", async () => {
  const project = await mkdtemp(join(tmpdir(), "harness-project-"));
  await writeFile(join(project, "plan.md"), "");
  try {
    await withFakeServer({ projectDir: project }, async (server) => {
      await call(server, "POST", "/sessions", { userId: "alice", sessionId: "s1" });
      assert.deepEqual(await call(server, "GET", files("s1", "&prefix=pl")), { status: 200, body: { paths: ["plan.md"], fuzzy: false } });
    });
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});

test("with no path starting with the prefix, its characters in order find one anywhere below, as the chat's own completion does; never through a link leading out", async () => {
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  await mkdir(join(outside, "srcchat"));
  await writeFile(join(outside, "srcchat", "leak.ts"), "x");
  try {
    await withFakeServer({}, async (server, _runners, dataDir) => {
      await call(server, "POST", "/sessions", { userId: "alice", sessionId: "s1" });
      const workspace = join(dataDir, "workspaces", "alice", "s1");
      await mkdir(join(workspace, "src"), { recursive: true });
      await mkdir(join(workspace, "node_modules", "srcchat"), { recursive: true });
      await writeFile(join(workspace, "src", "chat.ts"), "");
      await writeFile(join(workspace, "src", "chat-line.ts"), "");
      await symlink(outside, join(workspace, "linked"));
      await symlink(join(outside, "srcchat"), join(workspace, "src", "srcchat-out"));
      const answer = async (prefix: string) => (await call(server, "GET", files("s1", `&prefix=${encodeURIComponent(prefix)}`))).body;
      assert.deepEqual(await answer("srcchat"), { paths: ["src/chat.ts", "src/chat-line.ts"], fuzzy: true }, "not the link out, nor node_modules");
      assert.deepEqual(await answer("leak"), { paths: [], fuzzy: true }, "nothing behind a link leading out");
      assert.deepEqual(await answer("sr/chat"), { paths: ["src/chat.ts", "src/chat-line.ts"], fuzzy: true }, "a folder mistyped: as a chat's own completion, the fuzzy match");
      assert.deepEqual(await answer("linked/srcchat/"), { paths: [], fuzzy: false });
      assert.deepEqual(await answer("src/ch"), { paths: ["src/chat-line.ts", "src/chat.ts"], fuzzy: false });
    });
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

test("in a workspace of more entries than the walk reads, the fuzzy search answers after its walk, and a request given up on stops it", async () => {
  await withFakeServer({}, async (server, _runners, dataDir) => {
    await call(server, "POST", "/sessions", { userId: "alice", sessionId: "s1" });
    const workspace = join(dataDir, "workspaces", "alice", "s1");
    for (let folder = 0; folder < 10; folder++) {
      await mkdir(join(workspace, `d${String(folder).padStart(2, "0")}`), { recursive: true });
      await Promise.all(Array.from({ length: 1_000 }, (_, i) => writeFile(join(workspace, `d${String(folder).padStart(2, "0")}`, `f${i}`), "")));
    }
    await mkdir(join(workspace, "zz"));
    await writeFile(join(workspace, "zz", "target.md"), "");
    // The walk reads WALK_LIMIT entries, far fewer than the tree's: the target below them is not found.
    assert.ok(WALK_LIMIT < 10_000);
    assert.deepEqual((await call(server, "GET", files("s1", "&prefix=target"))).body, { paths: [], fuzzy: true });
    // At the top a target is found; a search given up on stops and answers nothing.
    await writeFile(join(workspace, "top-target.md"), "");
    assert.deepEqual(await sessionFiles(workspace, "toptarget"), { paths: ["top-target.md"], fuzzy: true });
    const controller = new AbortController();
    const given = sessionFiles(workspace, "toptarget", controller.signal);
    controller.abort();
    assert.deepEqual(await given, { paths: [], fuzzy: false });
  });
});
