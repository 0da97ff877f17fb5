// `harness run --include-hook-events`: stream-json output tells of every hook the run fires, as
// Claude Code's system messages hook_started and hook_response, whatever kind of hook it is.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../../test-support.ts";

type Line = { type: string; subtype?: string; [key: string]: unknown };
const linesOf = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Line);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A project whose hooks are of every kind: a command that says something on both streams, a prompt
 * hook the model says yes to, a command that fails, and an http hook at `url`. */
function project(t: { after(fn: () => unknown): void }, url: string): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  const hooks = {
    UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo submitted; echo noted >&2" }] }],
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt: "Is this command safe? $ARGUMENTS" }] }],
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo broke >&2; exit 1" }] }],
    Stop: [{ hooks: [{ type: "http", url }] }],
  };
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks }));
  return dir;
}

async function hookServer(t: { after(fn: () => unknown): void }): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const REPLIES = [{ toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "echo hi" } }] }, { text: '{"ok": true}' }, { text: "Done." }];

test("--include-hook-events: each hook fired is a hook_started then a hook_response line, with its id, name, event, output and outcome", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: REPLIES }));
  const dir = project(t, await hookServer(t));
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "--include-hook-events", "run it"];
  const { code, stdout, stderr } = await harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }).result;
  assert.equal(code, 0, stderr);
  const lines = linesOf(stdout);
  const hookLines = lines.filter((line) => line.type === "system" && String(line.subtype).startsWith("hook_"));
  const session = lines.find((line) => line.type === "result")!.session_id;
  const started = hookLines.filter((line) => line.subtype === "hook_started");
  const responses = hookLines.filter((line) => line.subtype === "hook_response");
  assert.deepEqual(
    started.map((line) => [line.hook_name, line.hook_event]),
    [["UserPromptSubmit", "UserPromptSubmit"], ["PreToolUse:Bash", "PreToolUse"], ["PostToolUse:Bash", "PostToolUse"], ["Stop", "Stop"]],
    stdout,
  );
  for (const line of hookLines) {
    assert.match(String(line.hook_id), UUID);
    assert.match(String(line.uuid), UUID);
    assert.equal(line.session_id, session);
  }
  // Each response follows its start, under the same id.
  for (const start of started) {
    const response = responses.find((line) => line.hook_id === start.hook_id);
    assert.ok(response && lines.indexOf(start) < lines.indexOf(response), `${start.hook_name} has its response after it`);
    assert.equal(response.hook_name, start.hook_name);
  }
  const byName = (name: string) => responses.find((line) => line.hook_name === name)!;
  const pick = (line: Line) => ({ stdout: line.stdout, stderr: line.stderr, output: line.output, exit_code: line.exit_code, outcome: line.outcome });
  assert.deepEqual(pick(byName("UserPromptSubmit")), { stdout: "submitted\n", stderr: "noted\n", output: "submitted\nnoted\n", exit_code: 0, outcome: "success" });
  assert.deepEqual(pick(byName("PostToolUse:Bash")), { stdout: "", stderr: "broke\n", output: "broke\n", exit_code: 1, outcome: "error" });
  assert.equal(byName("PreToolUse:Bash").outcome, "success");
  assert.equal(byName("Stop").outcome, "success");
  // The tool hooks come in the call's course: after the model asked for it, before its result.
  const toolUse = lines.findIndex((line) => line.type === "assistant" && JSON.stringify(line).includes("tool_use"));
  const toolResult = lines.findIndex((line) => line.type === "user");
  assert.ok(toolUse < lines.indexOf(started[1]!) && lines.indexOf(started[1]!) < lines.indexOf(started[2]!) && lines.indexOf(started[2]!) < toolResult, stdout);
});

test("without --include-hook-events only SessionStart hooks are told, as Claude Code always tells them; the others run unsaid", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: REPLIES }));
  const dir = project(t, await hookServer(t));
  const settings = JSON.parse(readFileSync(join(dir, ".claude", "settings.json"), "utf8")) as { hooks: Record<string, unknown> };
  settings.hooks.SessionStart = [{ hooks: [{ type: "command", command: "echo starting" }] }];
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify(settings));
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "run it"];
  const { code, stdout, stderr } = await harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }).result;
  assert.equal(code, 0, stderr);
  const hookLines = linesOf(stdout).filter((line) => String(line.subtype).startsWith("hook_"));
  assert.deepEqual(
    hookLines.map((line) => [line.subtype, line.hook_event]),
    [["hook_started", "SessionStart"], ["hook_response", "SessionStart"]],
    stdout,
  );
  assert.equal(hookLines[1]!.stdout, "starting\n");
  assert.equal(hookLines[0]!.hook_id, hookLines[1]!.hook_id);
  assert.equal(fake.requests.length, 3, "the prompt hook asked its model");
});
