// Many sessions at once, each with its own workspace; a user's sessions share a runner process,
// different users' sessions never do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startFakeAnthropic, startHarnessServer, MinimalClient } from "@harness/test-utils";

test("sessions run concurrently, each in its own workspace, on one runner process per user", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-many-"));
  // Each session's first request gets a Bash call, the request with its result gets the answer.
  const fake = await startFakeAnthropic({
    respond: (req) => {
      const last = req.body.messages.at(-1);
      const hasResult = Array.isArray(last.content) && last.content.some((b: { type: string }) => b.type === "tool_result");
      return hasResult
        ? { text: "done" }
        : { toolUses: [{ name: "Bash", input: { command: "pwd && echo marker > mine.txt && ls" } }], delayMs: 5 };
    },
  });
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url } });
  try {
    const count = 4;
    const clients = await Promise.all(
      Array.from({ length: count }, (_, i) => MinimalClient.connect(server.url, { userId: `user${i % 2}`, sessionId: `par${i}` })),
    );
    // The command writes a file, which asks for approval in the default mode; this test is about workspaces.
    for (const c of clients) c.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "where am I?" });
    await Promise.all(clients.map((c) => c.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 60_000)));
    const outputs = clients.map((c) => c.state!.messages[1].toolCalls![0].output!);
    const dirs = outputs.map((o) => o.split("\n")[0].trim());
    assert.equal(new Set(dirs).size, count, `every session has its own workspace: ${dirs.join(", ")}`);
    for (const o of outputs) assert.match(o, /mine\.txt/);
    for (const dir of dirs) assert.ok(dir.startsWith(dataDir), `${dir} is under the data dir`);
    const db = new DatabaseSync(join(dataDir, "harness.db"), { readOnly: true });
    const pidOf = (i: number) =>
      (db.prepare("SELECT pid FROM runners WHERE user_id = ? AND session_id = ?").get(`user${i % 2}`, `par${i}`) as { pid: number }).pid;
    const pids = Array.from({ length: count }, (_, i) => pidOf(i));
    db.close();
    assert.equal(pids[0], pids[2], "user0's two sessions share a process");
    assert.equal(pids[1], pids[3], "user1's two sessions share a process");
    assert.notEqual(pids[0], pids[1], "two users never share one");
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await server.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
