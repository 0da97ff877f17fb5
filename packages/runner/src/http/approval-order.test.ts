// A run's approval requests reach the session in order with the run's other events: after the
// announcement of the call they ask about, even while a report of the files an earlier call changed
// holds the events behind it back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerEvent } from "@harness/protocol";
import { fakeBackend, never, post, startRunner, usage } from "../test-support.ts";

const needsGit = { skip: spawnSync("git", ["--version"]).status === 0 ? false : "git is not installed" };

test("an approval request comes after its call's announcement, though a changed-files report holds that back", needsGit, async (t) => {
  const root = mkdtempSync(join(tmpdir(), "harness-approval-order-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const backend = fakeBackend(
    async (_q, ctx) => {
      // A first call changes a file: its report is made once it ends, and what follows waits for it.
      ctx.emit({ type: "tool.started", toolUseId: "t1", toolName: "Write", input: { file_path: "a.txt", content: "a" } });
      await ctx.beforeChanges!("t1");
      writeFileSync(join(workspace, "a.txt"), "a");
      ctx.emit({ type: "tool.completed", toolUseId: "t1", output: "written", isError: false });
      // The next call is announced at once and asks for approval.
      ctx.emit({ type: "tool.started", toolUseId: "t2", toolName: "Write", input: { file_path: "b.txt", content: "b" } });
      const decision = await ctx.requestApproval!({ toolUseId: "t2", toolName: "Write", description: "b.txt" });
      ctx.emit({ type: "tool.completed", toolUseId: "t2", output: decision.behavior, isError: false });
      return { ok: true, result: "done", usage, transcript: [] };
    },
    { checkpointsOnChange: true },
  );
  const { url, client } = await startRunner(t, { backend, workspace, stateDir: join(root, "state") });
  const seen: RunnerEvent[] = [];
  for await (const event of client.query({ prompt: "p", interactive: true, userMessageId: "m1" }, { signal: never() })) {
    seen.push(event);
    if (event.type === "approval.requested") {
      const started = seen.at(0);
      assert.ok(started?.type === "run.started");
      await post(`${url}/runs/${started.requestId}/approve`, { toolUseId: "t2" });
    }
  }
  const order = seen.filter((e) => e.type !== "notice").map((e) => ("toolUseId" in e ? `${e.type} ${e.toolUseId}` : e.type));
  assert.deepEqual(order.filter((e) => / t2$|files.changed/.test(e)), ["files.changed t1", "tool.started t2", "approval.requested t2", "approval.resolved t2", "tool.completed t2"]);
});
