// The shells as the wire carries them: however many a conversation starts, and however long their
// commands, the list fits the protocol's bounds (a runner event past them would fail the run).
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_LISTED_SHELLS, RunnerEventSchema } from "@harness/protocol";
import type { BackgroundShell, ShellStatus } from "./background-shells.ts";
import { MAX_LISTED_COMMAND_CHARS, shellList } from "./shells-watch.ts";

function shell(id: string, status: ShellStatus, at: number, command = `sleep ${at}`): BackgroundShell {
  return { id, command, status, startedAt: new Date(at), exitCode: null } as unknown as BackgroundShell;
}

test("more shells than a list holds: every running one is kept before the finished ones, newest first of each, oldest first in the list", () => {
  const shells = new Map<string, BackgroundShell>();
  for (let i = 0; i < 300; i++) shells.set(`r${i}`, shell(`r${i}`, "running", 1000 + i * 2));
  for (let i = 0; i < 32; i++) shells.set(`f${i}`, shell(`f${i}`, "completed", 1001 + i * 2));
  const listed = shellList(shells);
  assert.equal(listed.length, MAX_LISTED_SHELLS);
  assert.ok(listed.every((s) => s.status === "running"), "the running ones first");
  assert.equal(listed[0]!.id, "r100", "the newest kept");
  assert.equal(listed.at(-1)!.id, "r299");
  const event = RunnerEventSchema.safeParse({ type: "shells.changed", seq: 1, shells: listed });
  assert.ok(event.success, event.error?.message);
});

test("a very long command is listed cut, with a mark that says so", () => {
  const shells = new Map([["a", shell("a", "running", 1, `echo ${"x".repeat(200_000)}`)], ["b", shell("b", "running", 2, "sleep 1")]]);
  const [a, b] = shellList(shells);
  assert.equal(a!.command.length, MAX_LISTED_COMMAND_CHARS);
  assert.match(a!.command, /^echo x+… \(cut: 200005 characters\)$/);
  assert.equal(b!.command, "sleep 1");
});
