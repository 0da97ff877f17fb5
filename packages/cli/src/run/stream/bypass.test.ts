// `harness run --input-format stream-json` and bypassPermissions: a switch to it, by an approval
// or a set_permission_mode request, follows the run's one rule (allowed in a run started in it or
// with --allow-dangerously-skip-permissions, never under disableBypassPermissionsMode), and what a
// turn took is what the turns after it keep.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { controlLine, harness, jsonLine, STREAM_JSON, streamLinesOf, tempDir, userLine, withFake, type Result } from "../../test-support.ts";

const bash = (id: string, command: string) => ({ toolUses: [{ id, name: "Bash", input: { command } }] });
const toBypass = { type: "setMode", mode: "bypassPermissions", destination: "session" };
const env = (url: string) => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url });

/** Runs `messages` (stream-json lines) with `flags`, answering each can_use_tool with `answer`;
 * after the nth result, writes `then[n - 1]`, and ends stdin once none is left. */
function driven(dir: string, url: string, flags: string[], messages: string, answer: Record<string, unknown>, then: string[] = [], moreEnv: Record<string, string> = {}) {
  let seen = 0;
  let read = 0;
  const asked: string[] = [];
  const run = harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-prompt-tool", "stdio", ...flags, ...STREAM_JSON], { ...env(url), ...moreEnv }, {
    stdin: { open: true },
    // Told all of stdout so far each time: only the whole lines not read yet are looked at.
    onStdout: (text) => {
      const lines = text.split("\n").slice(0, -1);
      for (const line of lines.slice(read)) {
        const parsed = JSON.parse(line) as { type: string; request_id?: string; request?: { subtype?: string; input?: { command?: string } } };
        if (parsed.type === "control_request" && parsed.request?.subtype === "can_use_tool") {
          asked.push(String(parsed.request.input?.command));
          run.child.stdin!.write(jsonLine({ type: "control_response", response: { subtype: "success", request_id: parsed.request_id, response: answer } }));
        }
        if (parsed.type !== "result") continue;
        const next = then[seen++];
        if (next === undefined) run.child.stdin!.end();
        else run.child.stdin!.write(next);
      }
      read = lines.length;
    },
  });
  run.child.stdin!.write(messages);
  return { result: run.result, asked };
}

test("stream-json: a run whose settings start it in bypassPermissions takes an approval's setMode to it, and says nothing was refused", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), { text: "Done." }] }));
  const dir = tempDir(t);
  const settings = JSON.stringify({ permissions: { defaultMode: "bypassPermissions", ask: ["Bash(touch:*)"] } });
  const run = driven(dir, fake.url, ["--settings", settings], userLine("make a file"), { behavior: "allow", updatedPermissions: [toBypass] });
  const { code, stdout, stderr } = await run.result;
  assert.equal(code, 0, stderr);
  assert.deepEqual(run.asked, ["touch a.txt"]);
  assert.ok(existsSync(join(dir, "a.txt")));
  assert.doesNotMatch(stderr, /not taken|refused/);
  assert.equal(streamLinesOf(stdout).find((l) => l.type === "result")?.subtype, "success");
});

test("stream-json: can_use_tool's allow with updatedPermissions null allows the call, with no updates", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), { text: "Done." }] }));
  const dir = tempDir(t);
  const run = driven(dir, fake.url, [], userLine("make a file"), { behavior: "allow", updatedPermissions: null });
  const { code, stdout, stderr } = await run.result;
  assert.equal(code, 0, stderr);
  assert.ok(existsSync(join(dir, "a.txt")));
  assert.equal(stderr, "");
  assert.deepEqual(streamLinesOf(stdout).find((l) => l.type === "result")?.permission_denials, []);
});

const responsesOf = (result: Result) => new Map(streamLinesOf(result.stdout).filter((l) => l.type === "control_response").map((l) => [l.response.request_id, l.response]));

test("set_permission_mode: a run its settings started in bypassPermissions may be switched back to it after leaving it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, bash("toolu_m", "mkdir made"), { text: "Two." }] }));
  const dir = tempDir(t);
  const settings = JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } });
  const modes = controlLine("m-1", { subtype: "set_permission_mode", mode: "default" }) + controlLine("m-2", { subtype: "set_permission_mode", mode: "bypassPermissions" });
  const run = driven(dir, fake.url, ["--settings", settings], userLine("one"), { behavior: "deny", message: "no" }, [modes + userLine("two")]);
  const result = await run.result;
  assert.equal(result.code, 0, result.stderr);
  const responses = responsesOf(result);
  assert.equal(responses.get("m-1")?.subtype, "success");
  assert.equal(responses.get("m-2")?.subtype, "success", JSON.stringify(responses.get("m-2")));
  assert.deepEqual(run.asked, [], "the second turn ran in bypassPermissions");
  assert.ok(existsSync(join(dir, "made")));
});

test("set_permission_mode: bypassPermissions is refused where the settings say disableBypassPermissionsMode, even with --allow-dangerously-skip-permissions", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, bash("toolu_m", "mkdir made"), { text: "Two." }] }));
  const dir = tempDir(t);
  const settings = JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } });
  const mode = controlLine("m-1", { subtype: "set_permission_mode", mode: "bypassPermissions" });
  const run = driven(dir, fake.url, ["--allow-dangerously-skip-permissions", "--settings", settings], userLine("one"), { behavior: "deny", message: "no" }, [mode + userLine("two")]);
  const result = await run.result;
  assert.equal(result.code, 0, result.stderr);
  const refused = responsesOf(result).get("m-1");
  assert.equal(refused?.subtype, "error");
  assert.match(refused?.error, /set_permission_mode: .*disableBypassPermissionsMode/);
  assert.deepEqual(run.asked, ["mkdir made"], "the second turn still asked");
  assert.equal(existsSync(join(dir, "made")), false);
});

test("stream-json: a session started in bypassPermissions that left it takes an approval's switch back to it in a later turn", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, bash("toolu_a", "touch a.txt"), bash("toolu_m", "mkdir made"), { text: "Two." }] }));
  const dir = tempDir(t);
  const leave = controlLine("m-1", { subtype: "set_permission_mode", mode: "default" });
  const run = driven(dir, fake.url, ["--permission-mode", "bypassPermissions"], userLine("one"), { behavior: "allow", updatedPermissions: [toBypass] }, [leave + userLine("two")]);
  const { code, stderr } = await run.result;
  assert.equal(code, 0, stderr);
  assert.deepEqual(run.asked, ["touch a.txt"], "the call after the approval ran in bypassPermissions");
  assert.doesNotMatch(stderr, /refused/);
  assert.ok(existsSync(join(dir, "made")));
});

test("set_permission_mode before the first turn: bypassPermissions is allowed where the user's settings start the session in it, and the turn runs in it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_m", "mkdir made"), { text: "Done." }] }));
  const dir = tempDir(t);
  const home = join(dir, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }));
  const work = join(dir, "work");
  mkdirSync(work);
  const messages = controlLine("m-1", { subtype: "set_permission_mode", mode: "default" }) + controlLine("m-2", { subtype: "set_permission_mode", mode: "bypassPermissions" }) + userLine("make a directory");
  const run = driven(work, fake.url, [], messages, { behavior: "deny", message: "no" }, [], { HOME: home });
  const result = await run.result;
  assert.equal(result.code, 0, result.stderr);
  const responses = responsesOf(result);
  assert.equal(responses.get("m-1")?.subtype, "success");
  assert.equal(responses.get("m-2")?.subtype, "success", JSON.stringify(responses.get("m-2")));
  assert.deepEqual(run.asked, [], "the turn ran in bypassPermissions");
  assert.ok(existsSync(join(work, "made")));
});

test("set_permission_mode before the first turn: bypassPermissions is refused, naming disableBypassPermissionsMode, where the settings disable it though --allow-dangerously-skip-permissions is given", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_m", "mkdir made"), { text: "Done." }] }));
  const dir = tempDir(t);
  const settings = JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } });
  const messages = controlLine("m-1", { subtype: "set_permission_mode", mode: "bypassPermissions" }) + userLine("make a directory");
  const run = driven(dir, fake.url, ["--allow-dangerously-skip-permissions", "--settings", settings], messages, { behavior: "deny", message: "no" });
  const result = await run.result;
  assert.equal(result.code, 0, result.stderr);
  const refused = responsesOf(result).get("m-1");
  assert.equal(refused?.subtype, "error");
  assert.match(refused?.error, /set_permission_mode: .*disableBypassPermissionsMode/);
  assert.deepEqual(run.asked, ["mkdir made"], "the turn still asked");
  assert.equal(existsSync(join(dir, "made")), false);
});

test("set_permission_mode before the first turn: the initialize request's settings count, as the turn's will", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done." }] }));
  const dir = tempDir(t);
  const init = controlLine("i-1", { subtype: "initialize", settings: { permissions: { disableBypassPermissionsMode: "disable" } } });
  const messages = init + controlLine("m-1", { subtype: "set_permission_mode", mode: "bypassPermissions" }) + userLine("hi");
  const run = driven(dir, fake.url, ["--allow-dangerously-skip-permissions"], messages, { behavior: "deny", message: "no" });
  const result = await run.result;
  assert.equal(result.code, 0, result.stderr);
  const refused = responsesOf(result).get("m-1");
  assert.equal(refused?.subtype, "error");
  assert.match(refused?.error, /disableBypassPermissionsMode/);
});
