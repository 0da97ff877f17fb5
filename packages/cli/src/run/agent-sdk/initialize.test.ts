// The Claude Agent SDK's options that reach Claude Code either on its command line or in the
// initialize request (disallowedToolsDelivery, settingsDelivery, pluginDelivery): `harness run`
// honours them both ways, end to end through the real process against the fake Anthropic server.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { query, type CanUseTool, type HookCallback, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { startFakeAnthropic } from "@harness/test-utils";
import { greeterPlugin, tempDir, withFake } from "../../test-support.ts";
import { allMessages, sdkOptions } from "./test-support.ts";

/** sdkOptions, with the run's stderr kept in `stderr`. */
const options = (dir: string, fakeUrl: string, stderr: string[], more: Record<string, unknown> = {}) =>
  sdkOptions(dir, fakeUrl, { stderr: (text: string) => stderr.push(text), ...more });


const offered = (body: Record<string, unknown>) => (body.tools as { name: string }[]).map((tool) => tool.name);
const initOf = (messages: SDKMessage[]) => {
  const init = messages[0]!;
  assert.ok(init.type === "system" && init.subtype === "init", JSON.stringify(init));
  return init;
};

for (const delivery of ["argv", "initialize"] as const) {
  test(`Agent SDK: disallowedTools (disallowedToolsDelivery: ${delivery}) takes the tools away, as --disallowedTools does`, async (t) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "touch ran.txt" } }] }, { text: "Could not." }] }));
    const dir = tempDir(t);
    const stderr: string[] = [];
    const messages = await allMessages(query({ prompt: "make a file", options: options(dir, fake.url, stderr, { disallowedTools: ["Bash", "WebSearch"], disallowedToolsDelivery: delivery, permissionMode: "acceptEdits" }) }));
    const result = messages.at(-1)!;
    assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
    assert.doesNotMatch(stderr.join(""), /not acted on/);
    const init = initOf(messages);
    assert.ok(!init.tools.includes("Bash") && !init.tools.includes("WebSearch") && init.tools.includes("Read"), String(init.tools));
    assert.ok(!offered(fake.requests[0]!.body).includes("Bash"));
    assert.ok(!existsSync(join(dir, "ran.txt")), "the denied tool did not run");
  });

  test(`Agent SDK: settings (settingsDelivery: ${delivery}) apply as --settings does`, async (t) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "echo \"who: $WHO\"" } }] }, { text: "Said." }] }));
    const dir = tempDir(t);
    const stderr: string[] = [];
    const settings = { env: { WHO: "the SDK's settings" }, permissions: { allow: ["Bash(echo:*)"], deny: ["WebSearch"] } };
    const messages = await allMessages(query({ prompt: "who?", options: options(dir, fake.url, stderr, { settings, settingsDelivery: delivery }) }));
    const result = messages.at(-1)!;
    assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
    assert.doesNotMatch(stderr.join(""), /not acted on/);
    assert.ok(!initOf(messages).tools.includes("WebSearch"));
    assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /who: the SDK's settings/, "the settings' env and allow rule reached the command");
  });

  test(`Agent SDK: an API key given only in the settings (settingsDelivery: ${delivery}) is the run's key`, async (t) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Keyed." }] }));
    const dir = tempDir(t);
    const stderr: string[] = [];
    const { ANTHROPIC_API_KEY: _unset, ...env } = options(dir, fake.url, stderr).env;
    const settings = { env: { ANTHROPIC_API_KEY: "from-settings" } };
    const messages = await allMessages(query({ prompt: "hi", options: options(dir, fake.url, stderr, { env, settings, settingsDelivery: delivery }) }));
    const result = messages.at(-1)!;
    assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
    assert.equal(fake.requests[0]!.headers["x-api-key"], "from-settings");
  });

  test(`Agent SDK: local plugins (pluginDelivery: ${delivery}) load as --plugin-dir's do`, async (t) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hello, Ada." }] }));
    const dir = tempDir(t);
    const plugin = greeterPlugin(dir);
    const stderr: string[] = [];
    const messages = await allMessages(query({ prompt: "/greeter:hello Ada", options: options(dir, fake.url, stderr, { plugins: [{ type: "local", path: plugin }], pluginDelivery: delivery }) }));
    const result = messages.at(-1)!;
    assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
    assert.doesNotMatch(stderr.join(""), /not acted on/);
    assert.deepEqual(initOf(messages).plugins, [{ name: "greeter", path: plugin }]);
    assert.match(JSON.stringify(fake.requests[0]!.body.messages), /Greet Ada warmly\./);
  });
}

test("Agent SDK: with no API key anywhere, the run's result says which variable to set", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Unreachable." }] }));
  const stderr: string[] = [];
  const base = options(tempDir(t), fake.url, stderr);
  const { ANTHROPIC_API_KEY: _unset, ...env } = base.env;
  await assert.rejects(allMessages(query({ prompt: "hi", options: { ...base, env } })), /ANTHROPIC_API_KEY is not set/);
  assert.equal(fake.requests.length, 0);
});

test("Agent SDK: a hook matcher with onFailure 'block' blocks the tool call when its callback fails; without it the call goes ahead", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "touch guarded.txt" } }, { id: "toolu_wr", name: "Write", input: { file_path: "open.txt", content: "hi" } }] },
        { text: "Done." },
      ],
    }),
  );
  const dir = tempDir(t);
  const stderr: string[] = [];
  const broken: HookCallback = async () => {
    throw new Error("the policy service is down");
  };
  const messages = await allMessages(
    query({
      prompt: "make files",
      options: options(dir, fake.url, stderr, {
        permissionMode: "acceptEdits",
        allowedTools: ["Bash(touch:*)"],
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [broken], onFailure: "block" }, { matcher: "Write", hooks: [broken] }] },
      }),
    }),
  );
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.ok(!existsSync(join(dir, "guarded.txt")), "the call whose hook failed with onFailure 'block' did not run");
  assert.ok(existsSync(join(dir, "open.txt")), "the call whose hook failed without it ran");
  assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /the policy service is down/);
});

for (const delivery of ["argv", "initialize"] as const) {
  test(`Agent SDK: managedSettings (managedSettingsDelivery: ${delivery}): their deny rules hold; a malformed restriction is refused, naming it, rather than run without`, async (t) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "touch ran.txt" } }] }, { text: "Could not." }] }));
    const dir = tempDir(t);
    const stderr: string[] = [];
    const messages = await allMessages(
      query({ prompt: "make a file", options: options(dir, fake.url, stderr, { managedSettings: { permissions: { deny: ["Bash", "WebSearch"] } }, managedSettingsDelivery: delivery, permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true }) }),
    );
    const result = messages.at(-1)!;
    assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
    assert.ok(!initOf(messages).tools.includes("Bash"));
    assert.ok(!existsSync(join(dir, "ran.txt")), "the denied tool did not run");

    const refused = allMessages(query({ prompt: "hi", options: options(dir, fake.url, stderr, { managedSettings: { allowManagedHooksOnly: "yes", permissions: { deny: ["Bash"] } }, managedSettingsDelivery: delivery }) }));
    await assert.rejects(refused, /managed.*allowManagedHooksOnly/s);
    assert.equal(fake.requests.length, 2, "the refused session asked the model nothing");
  });

  test(`Agent SDK: managedSettings (managedSettingsDelivery: ${delivery}) are the managed tier: their locks hold over the project's settings, and what does not restrict is said and left out`, async (t) => {
    const touch = (id: string, file: string) => ({ toolUses: [{ id, name: "Bash", input: { command: `touch ${file}` } }] });
    const fake = await withFake(t, startFakeAnthropic({ replies: [touch("toolu_1", "ran.txt"), { text: "Could not." }, touch("toolu_2", "ran.txt"), { text: "Made it." }] }));
    const dir = tempDir(t);
    mkdirSync(join(dir, ".claude"));
    const hook = { hooks: [{ type: "command", command: `touch "${join(dir, "hook-ran")}"` }] };
    writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] }, hooks: { UserPromptSubmit: [hook] } }));
    const stderr: string[] = [];
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (tool) => {
      asked.push(tool);
      return { behavior: "deny", message: "not now" };
    };
    const managedSettings = { allowManagedPermissionRulesOnly: true, allowManagedHooksOnly: true, env: { X: "1" }, permissions: { defaultMode: "acceptEdits", allow: ["Bash"] } };
    const run = (more: Record<string, unknown>) => allMessages(query({ prompt: "make a file", options: options(dir, fake.url, stderr, { settingSources: ["project"], canUseTool, ...more }) }));
    const messages = await run({ managedSettings, managedSettingsDelivery: delivery });
    const result = messages.at(-1)!;
    assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
    assert.deepEqual(asked, ["Bash"], "the project's allow rule does not count under allowManagedPermissionRulesOnly");
    assert.ok(!existsSync(join(dir, "ran.txt")));
    assert.ok(!existsSync(join(dir, "hook-ran")), "the project's hook did not run under allowManagedHooksOnly");
    assert.match(stderr.join(""), /(--managed-settings|managedSettings): env, permissions\.defaultMode, permissions\.allow are not applied: .* only what restricts/);

    // Without them the project's settings hold: its hook runs and its rule allows the call.
    await run({});
    assert.ok(existsSync(join(dir, "hook-ran")) && existsSync(join(dir, "ran.txt")), stderr.join(""));
    assert.deepEqual(asked, ["Bash"]);
  });
}

test("Agent SDK: managedSettings' ask rules have a call asked about though allowedTools allow it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "touch ran.txt" } }] }, { text: "Made it." }] }));
  const dir = tempDir(t);
  const stderr: string[] = [];
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (tool, input) => {
    asked.push(tool);
    return { behavior: "allow", updatedInput: input };
  };
  const messages = await allMessages(
    query({ prompt: "make a file", options: options(dir, fake.url, stderr, { managedSettings: { permissions: { ask: ["Bash(touch:*)"] } }, managedSettingsDelivery: "initialize", allowedTools: ["Bash"], canUseTool }) }),
  );
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.deepEqual(asked, ["Bash"]);
  assert.ok(existsSync(join(dir, "ran.txt")), "the call ran once allowed");
});
