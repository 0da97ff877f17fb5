// A server started inside a repository (its data directory, ./.harness, in the project) gives its
// sessions workspaces that are projects of their own: the repository's memory files, settings and
// git are not theirs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, startFakeAnthropic, startHarnessServer } from "@harness/test-utils";
import { idle } from "./e2e-commands-support.ts";

test("a session of a server whose data directory is inside a repository sees neither that repository's CLAUDE.md and settings nor its git", async (t) => {
  const project = await mkdtemp(join(tmpdir(), "harness-outer-project-"));
  t.after(() => rm(project, { recursive: true, force: true }));
  execFileSync("git", ["init", "-q", project]);
  await writeFile(join(project, "CLAUDE.md"), "OUTER-PROJECT-MEMORY: the repository's own instructions\n");
  await mkdir(join(project, ".claude"));
  await writeFile(join(project, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(git rev-parse:*)"] } }));
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  const server = await startHarnessServer({ dataDir: join(project, ".harness"), env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_RETRY_BASE_MS: "10" } });
  t.after(() => server.stop());

  fake.push({ toolUses: [{ name: "Bash", input: { command: "git rev-parse --show-toplevel 2>&1; true", description: "find the repository" } }] }, { text: "Done." });
  const client = await MinimalClient.connect(server.url, { userId: "alice", sessionId: "s1" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "where am I?" });
  await client.waitForState(idle, 30_000, "the run to end");
  const [first] = await fake.waitForRequests(2);
  assert.doesNotMatch(JSON.stringify(first.body), /OUTER-PROJECT-MEMORY/, "the repository's CLAUDE.md is not the session's");
  const call = client.state!.messages[1].toolCalls![0];
  assert.equal(call.status, "complete", "the repository's deny rule is not the session's");
  assert.match(call.output ?? "", /not a git repository/);
  assert.doesNotMatch(call.output ?? "", new RegExp(project));
});
