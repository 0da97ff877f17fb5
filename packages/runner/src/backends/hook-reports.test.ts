// hook.ran through a real runner: one event per hook the settings configure, as it ends, with its
// matcher, its command with secrets hidden, and how it went; none for a run with no hook.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedProvider } from "@harness/agent/testing";
import type { RunnerEvent } from "@harness/protocol";
import { createRunnerClient } from "../client/client.ts";
import { createRunnerServer } from "../http/server.ts";
import { builtinBackend } from "./builtin.ts";
import { hookReports } from "./hook-reports.ts";

type TestContext = { after(fn: () => unknown): void };

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-hook-reports-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The events of one run of a Bash call then a reply, in `workspace`, with a home of its own. */
async function runIn(t: TestContext, workspace: string): Promise<RunnerEvent[]> {
  const provider = scriptedProvider([{ toolCalls: [{ id: "tu1", name: "Bash", input: { command: "echo hi" } }] }, { text: "Done." }]);
  const server = createRunnerServer({ workspace, backend: builtinBackend({ provider: () => provider, env: { ...process.env, HOME: tempDir(t), DEPLOY_TOKEN: "tok-0123456789abcdef" } }) });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const client = createRunnerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const events: RunnerEvent[] = [];
  for await (const event of client.query({ prompt: "go", permissionMode: "bypassPermissions" }, { signal: AbortSignal.timeout(30_000) })) events.push(event);
  return events;
}

test("each hook the settings configure is told once, as it ends: its event, matcher, command with secrets hidden, outcome and duration", async (t) => {
  const workspace = tempDir(t);
  mkdirSync(join(workspace, ".claude"));
  const hooks = {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "curl -s --token tok-0123456789abcdef localhost:1 >/dev/null; true" }] }],
    Stop: [{ hooks: [{ type: "command", command: "echo failing >&2; exit 1" }] }],
  };
  writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify({ hooks }));
  const events = await runIn(t, workspace);
  assert.equal(events.at(-1)?.type, "run.completed");
  const ran = events.filter((event) => event.type === "hook.ran");
  assert.deepEqual(
    ran.map(({ seq: _seq, durationMs, ...rest }) => ({ ...rest, timed: typeof durationMs === "number" && durationMs >= 0 })),
    [
      { type: "hook.ran", hookEvent: "PreToolUse", matcher: "Bash", kind: "command", command: "curl -s --token *** localhost:1 >/dev/null; true", outcome: "success", exitCode: 0, timed: true },
      { type: "hook.ran", hookEvent: "Stop", kind: "command", command: "echo failing >&2; exit 1", outcome: "error", exitCode: 1, timed: true },
    ],
  );
  const types = events.map((event) => event.type);
  assert.ok(types.indexOf("hook.ran") < types.indexOf("tool.completed"), "the PreToolUse hook is told before its call ends");
});

test("a run with no hook configured tells of none", async (t) => {
  const events = await runIn(t, tempDir(t));
  assert.equal(events.at(-1)?.type, "run.completed");
  assert.deepEqual(events.filter((event) => event.type === "hook.ran"), []);
});

test("the harness's own callback hooks are not told; the host's observer still is, of every hook", () => {
  const emitted: unknown[] = [];
  const seen: string[] = [];
  const observer = hookReports((event) => emitted.push(event), (text) => text, { started: (hook) => seen.push(`started ${hook.type}`), ended: (hook) => seen.push(`ended ${hook.type}`) });
  const run = { command: "callback", exitCode: 0, stdout: "", stderr: "", durationMs: 1, timedOut: false, aborted: false, suppressOutput: false };
  observer.started({ id: "1", event: "PreToolUse", name: "PreToolUse:Bash", type: "callback" });
  observer.ended({ id: "1", event: "PreToolUse", name: "PreToolUse:Bash", type: "callback" }, run);
  observer.ended({ id: "2", event: "Stop", name: "Stop", type: "http" }, { ...run, command: "https://hooks.example/…", aborted: true, exitCode: null });
  assert.deepEqual(seen, ["started callback", "ended callback", "ended http"]);
  assert.deepEqual(emitted, [{ type: "hook.ran", hookEvent: "Stop", kind: "http", command: "https://hooks.example/…", outcome: "cancelled", durationMs: 1 }]);
});

test("a hook command quoting a secret of the settings' env shows it as ***", async (t) => {
  const workspace = tempDir(t);
  mkdirSync(join(workspace, ".claude"));
  const settings = {
    env: { NOTIFY_SECRET: "settings-secret-0123456789" },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo settings-secret-0123456789 >/dev/null" }] }] },
  };
  writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify(settings));
  const events = await runIn(t, workspace);
  const ran = events.filter((event) => event.type === "hook.ran");
  assert.deepEqual(ran.map((event) => event.command), ["echo *** >/dev/null"]);
});
