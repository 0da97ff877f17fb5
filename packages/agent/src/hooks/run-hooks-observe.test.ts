// runHooks' observer: told as each hook starts and ends, the async ones too, and unable to change
// what the hooks do.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runHooks } from "./run-hooks.ts";
import { waitFor } from "./testing.ts";
import type { HookObserver, HookRunResult, ObservedHook } from "./types.ts";

const input = { session_id: "s", transcript_path: "/t", cwd: "/tmp", hook_event_name: "PreToolUse" as const, tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1" };
const opts = (observe: HookObserver) => ({ cwd: "/tmp", projectDir: "/tmp", signal: new AbortController().signal, observe });

function recorder() {
  const told: { what: "started" | "ended"; hook: ObservedHook; run?: HookRunResult }[] = [];
  return { told, observer: { started: (hook) => told.push({ what: "started", hook }), ended: (hook, run) => told.push({ what: "ended", hook, run }) } satisfies HookObserver };
}

test("each hook that runs, async ones included, is told as it starts and as it ends, under one id, named by its event and tool", async () => {
  const { told, observer } = recorder();
  const config = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command" as const, command: "echo waited" }, { type: "command" as const, command: "sleep 0.2; echo later", async: true }] }] };
  await runHooks(config, "PreToolUse", input, opts(observer));
  await waitFor(() => told.length === 4, 5000);
  const started = told.filter((entry) => entry.what === "started");
  assert.equal(started.length, 2);
  assert.notEqual(started[0]!.hook.id, started[1]!.hook.id);
  for (const entry of started) {
    assert.equal(entry.hook.name, "PreToolUse:Bash");
    assert.equal(entry.hook.event, "PreToolUse");
    assert.equal(entry.hook.matcher, "Bash", "the matcher of the group that selected it");
    const ended = told.find((other) => other.what === "ended" && other.hook.id === entry.hook.id);
    assert.ok(ended && told.indexOf(entry) < told.indexOf(ended));
  }
  assert.deepEqual(told.filter((entry) => entry.what === "ended").map((entry) => entry.run!.stdout).sort(), ["later\n", "waited\n"]);
});

test("an observer that throws changes nothing of what the hooks say", async () => {
  const throwing: HookObserver = {
    started: () => {
      throw new Error("observer broke");
    },
    ended: () => {
      throw new Error("observer broke");
    },
  };
  const config = { PreToolUse: [{ hooks: [{ type: "command" as const, command: "echo 'not here' >&2; exit 2" }] }] };
  const result = await runHooks(config, "PreToolUse", input, opts(throwing));
  assert.equal(result.blocked, true);
  assert.match(result.blockReason ?? "", /not here/);
});

test("a hook of a group without a matcher is told without one", async () => {
  const { told, observer } = recorder();
  await runHooks({ PreToolUse: [{ hooks: [{ type: "command" as const, command: "true" }] }] }, "PreToolUse", input, opts(observer));
  assert.equal(told.length, 2);
  assert.ok(told.every((entry) => !("matcher" in entry.hook)));
});
