// `harness run` with a PermissionRequest hook whose allow carries permission updates: what of them
// holds, what is refused (and said on stderr, naming who gave it and why), and what is kept in the
// settings files they name.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const bash = (id: string, command: string) => ({ toolUses: [{ id, name: "Bash", input: { command } }] });

/** A project whose settings have a PermissionRequest hook that allows a `touch` command with
 * `updates`, and says nothing of any other call (which is then refused: no one is there to ask). */
function projectWithHook(t: { after(fn: () => unknown): void }, updates: unknown[], settings: Record<string, unknown> = {}): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"), { recursive: true });
  const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: updates } } });
  writeFileSync(join(dir, ".hook-answer.json"), answer);
  const command = `grep -q '"touch ' && cat "${join(dir, ".hook-answer.json")}" || true`;
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ ...settings, hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] } }));
  return dir;
}

const touchRule = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "session" };
const toBypass = { type: "setMode", mode: "bypassPermissions", destination: "session" };

async function runIn(dir: string, fakeUrl: string, flags: string[] = []) {
  return harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "json", ...flags, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fakeUrl }).result;
}

const script = () => startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), bash("toolu_m", "mkdir made"), bash("toolu_b", "touch b.txt"), { text: "Done." }] });

test("a hook's setMode to bypassPermissions is refused in a run not started able to bypass; its other updates still hold", async (t) => {
  const fake = await withFake(t, script());
  const dir = projectWithHook(t, [toBypass, touchRule]);
  const { code, stdout, stderr } = await runIn(dir, fake.url);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /setMode bypassPermissions of a PermissionRequest hook is refused.*--allow-dangerously-skip-permissions/);
  assert.doesNotMatch(stderr, /can_use_tool/);
  assert.equal(existsSync(join(dir, "made")), false, "mkdir was not let through by a bypass mode");
  assert.ok(existsSync(join(dir, "b.txt")), "the rule given beside it holds");
  assert.deepEqual(JSON.parse(stdout).permission_denials.map((denial: { tool_use_id: string }) => denial.tool_use_id), ["toolu_m"]);
});

test("with --allow-dangerously-skip-permissions, a hook's setMode to bypassPermissions holds for the calls after it", async (t) => {
  const fake = await withFake(t, script());
  const dir = projectWithHook(t, [toBypass]);
  const { code, stdout, stderr } = await runIn(dir, fake.url, ["--allow-dangerously-skip-permissions"]);
  assert.equal(code, 0, stderr);
  assert.ok(existsSync(join(dir, "made")));
  assert.deepEqual(JSON.parse(stdout).permission_denials, []);
});

test("a hook's setMode to bypassPermissions is refused where the settings say disableBypassPermissionsMode, whatever the flags", async (t) => {
  const fake = await withFake(t, script());
  const dir = projectWithHook(t, [toBypass, touchRule], { permissions: { disableBypassPermissionsMode: "disable" } });
  const { code, stderr } = await runIn(dir, fake.url, ["--allow-dangerously-skip-permissions"]);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /setMode bypassPermissions of a PermissionRequest hook is refused.*disableBypassPermissionsMode/);
  assert.equal(existsSync(join(dir, "made")), false);
  assert.ok(existsSync(join(dir, "b.txt")));
});

test("a rule of a hook's updates that does not parse is not written to the settings file it names; the warning names the rule and the file", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), { text: "Done." }] }));
  const rules = [{ toolName: "Bash", ruleContent: "touch:*" }, { toolName: "Bash", ruleContent: "git:*push" }, { toolName: "bash" }];
  const dir = projectWithHook(t, [{ type: "addRules", rules, behavior: "allow", destination: "localSettings" }]);
  const { code, stderr } = await runIn(dir, fake.url);
  assert.equal(code, 0, stderr);
  const local = join(dir, ".claude", "settings.local.json");
  assert.deepEqual(JSON.parse(readFileSync(local, "utf8")).permissions.allow, ["Bash(touch:*)"]);
  assert.match(stderr, new RegExp(`Bash\\(git:\\*push\\).*${local.replace(/[.]/g, "\\.")}`));
  assert.match(stderr, new RegExp(`"bash".*${local.replace(/[.]/g, "\\.")}`));
});

test("a whole-tool deny a hook adds mid-run takes the tool out of the model's next requests", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), { text: "Done." }] }));
  const dir = projectWithHook(t, [{ type: "addRules", rules: [{ toolName: "WebFetch" }], behavior: "deny", destination: "session" }]);
  const { code, stderr } = await runIn(dir, fake.url);
  assert.equal(code, 0, stderr);
  const offered = (index: number) => (fake.requests[index]!.body.tools as { name: string }[]).map((tool) => tool.name);
  assert.ok(offered(0).includes("WebFetch"));
  assert.ok(offered(0).includes("Bash"));
  assert.ok(!offered(1).includes("WebFetch"), "WebFetch is no longer offered");
  assert.ok(offered(1).includes("Bash"));
});
