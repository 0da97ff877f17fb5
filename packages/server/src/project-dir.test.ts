// A server on one project (ServerOptions.projectDir): every session works in that directory, and
// deleting or forking a session leaves its files alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MinimalClient } from "@harness/test-utils";
import { resolveConfig } from "./config.ts";
import { call, testDir, withFakeServer } from "./test-helpers.ts";

test("deleting and forking sessions of a project leave the project's files as they are", async (t) => {
  const project = await testDir(t, "harness-project-");
  await writeFile(join(project, "main.ts"), "export {};\n");
  await withFakeServer({ projectDir: project }, async (server, runners, dataDir) => {
    const client = await MinimalClient.connect(server.url, { userId: "me", sessionId: "first" });
    await client.waitForState(() => true);
    client.send({ type: "submit", prompt: "hello" });
    const run = await runners.runners.get("me/first")!.nextRun();
    run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "hi" }, { type: "run.completed" });
    await client.waitForState((s) => s.status === "idle" && s.messages.length === 2);
    const state = join(dataDir, "state", "me", "first");
    await mkdir(state, { recursive: true });
    await writeFile(join(state, "checkpoints.jsonl"), "");

    assert.equal((await call(server, "POST", "/sessions/first/fork", { userId: "me", sessionId: "branch" })).status, 201);
    assert.deepEqual(await readdir(project), ["main.ts"]);
    assert.equal(existsSync(join(dataDir, "workspaces")), false, "no workspace of its own is made for the fork");
    const branch = await MinimalClient.connect(server.url, { userId: "me", sessionId: "branch" });
    await branch.waitForState((s) => s.messages.length === 2);

    assert.equal((await call(server, "DELETE", "/sessions/first?userId=me")).status, 200);
    assert.equal(await readFile(join(project, "main.ts"), "utf8"), "export {};\n");
    assert.equal(existsSync(state), false, "the session's own state goes");
    await Promise.all([client.close(), branch.close()]);
  });
});

test("a project that is not a directory, or that overlaps the data directory, is refused naming both", async (t) => {
  const project = await testDir(t, "harness-project-");
  await writeFile(join(project, "file"), "");
  const refused = (projectDir: string, dataDir: string) => assert.throws(() => resolveConfig({ projectDir, dataDir, env: {} }));
  refused(join(project, "missing"), join(project, "..", "data"));
  assert.throws(() => resolveConfig({ projectDir: join(project, "file"), env: {} }), /is not a directory/);
  assert.throws(() => resolveConfig({ projectDir: project, dataDir: join(project, ".harness"), env: {} }), /the data directory .*\.harness is inside the project/);
  assert.throws(() => resolveConfig({ projectDir: join(project), dataDir: join(project, ".."), env: {} }), /is inside the data directory/);
  assert.equal(resolveConfig({ projectDir: `${project}/.`, dataDir: `${project}-data`, env: {} }).projectDir, project);
});
