// The Agent SDK's initialize request to `harness run --input-format stream-json`, on the wire: what a
// second one does, and what a refused one leaves the run with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { controlLine, harness, jsonLine, STREAM_JSON, streamLinesOf, tempDir, userLine, withFake } from "../../test-support.ts";

const responsesOf = (stdout: string) => new Map(streamLinesOf(stdout).filter((l) => l.type === "control_response").map((l) => [l.response.request_id, l.response]));
const offered = (body: Record<string, unknown>) => (body.tools as { name: string }[]).map((tool) => tool.name);
const systemText = (body: Record<string, unknown>) => JSON.stringify(body.system);
const run = (fakeUrl: string, dir: string, stdin: string) =>
  harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fakeUrl, HOME: dir }, { stdin }).result;

test("a second initialize (the Agent SDK's reinitialize) changes nothing the first set: managed deny rules hold, and what differs is answered as not applied", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin =
    controlLine("init-1", { subtype: "initialize", managedSettings: { permissions: { deny: ["Bash"] } }, systemPrompt: "You are the first prompt." }) +
    controlLine("init-2", { subtype: "initialize", disallowedTools: ["WebFetch"], managedSettings: {}, systemPrompt: "You are the second prompt." }) +
    controlLine("init-3", { subtype: "initialize", managedSettings: { permissions: { deny: ["Bash"] } } }) +
    userLine("hi");
  const { code, stdout, stderr } = await run(fake.url, dir, stdin);
  assert.equal(code, 0, stderr);
  const responses = responsesOf(stdout);
  assert.equal(responses.get("init-1")?.response.managed_settings_applied, true);
  assert.equal(responses.get("init-2")?.subtype, "success", JSON.stringify(responses.get("init-2")));
  assert.equal(responses.get("init-2")?.response.managed_settings_applied, false);
  assert.equal(responses.get("init-2")?.response.disallowed_tools_applied, false);
  assert.equal(responses.get("init-3")?.response.managed_settings_applied, true, "the same managed settings again are in force");
  const body = fake.requests[0]!.body;
  assert.ok(!offered(body).includes("Bash"), String(offered(body)));
  assert.ok(offered(body).includes("WebFetch"), String(offered(body)));
  assert.match(systemText(body), /the first prompt/);
  assert.doesNotMatch(systemText(body), /the second prompt/);
});

test("a refused initialize keeps none of what it carried: the system prompt and agents sent with a bad plugin are not taken", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin =
    controlLine("init-1", {
      subtype: "initialize",
      systemPrompt: "You are the refused prompt.",
      agents: { scout: { description: "Looks around", prompt: "Look." } },
      plugins: [{ type: "git", url: "https://example.com/p.git" }],
    }) + userLine("hi");
  const { code, stdout, stderr } = await run(fake.url, dir, stdin);
  assert.equal(code, 0, stderr);
  assert.match(responsesOf(stdout).get("init-1")?.error, /^initialize: plugins\[0\]\.type must be "local"/);
  const body = fake.requests[0]!.body;
  assert.doesNotMatch(systemText(body), /the refused prompt/);
  assert.doesNotMatch(JSON.stringify(body.tools), /scout/);
});

test("after an initialize whose restrictions were refused, each message is answered with an error result naming why, and no model is asked", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin = controlLine("init-1", { subtype: "initialize", managedSettings: { model: "x", permissions: { deny: "Bash" } } }) + userLine("hi") + userLine("again");
  const { code, stdout } = await run(fake.url, dir, stdin);
  assert.equal(code, 1);
  assert.equal(responsesOf(stdout).get("init-1")?.subtype, "error");
  const results = streamLinesOf(stdout).filter((l) => l.type === "result");
  assert.equal(results.length, 2);
  for (const result of results) {
    assert.equal(result.is_error, true);
    assert.match(result.errors[0], /initialize request was refused/);
    assert.match(result.errors[0], /managedSettings: permissions\.deny must be a list of permission rules/);
  }
  assert.equal(fake.requests.length, 0);
});

test("agents sent at initialize are checked as --agents' are: a server definition or hook that cannot be used refuses the request, naming the agent and the field", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const agent = (fields: Record<string, unknown>) => ({ helper: { description: "Helps", prompt: "You help.", ...fields } });
  const stdin =
    controlLine("init-1", { subtype: "initialize", agents: agent({ mcpServers: [{ tool: { args: ["x"] } }] }) }) +
    controlLine("init-2", { subtype: "initialize", agents: agent({ hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } }) }) +
    controlLine("init-3", { subtype: "initialize", agents: agent({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true", statusMessage: "Checking" }] }] } }) }) +
    userLine("hi");
  const { code, stdout, stderr } = await run(fake.url, dir, stdin);
  assert.equal(code, 0, stderr);
  const responses = responsesOf(stdout);
  assert.match(responses.get("init-1")?.error, /^initialize: agents: helper: "mcpServers\[0\]": tool\.command: missing "command"/);
  assert.match(responses.get("init-2")?.error, /^initialize: agents: helper: "hooks": PreToolUse\[0\]\.hooks\[0\]\.command: /);
  assert.equal(responses.get("init-3")?.subtype, "success");
  assert.deepEqual(responses.get("init-3")?.response.agents, [{ name: "helper", description: "Helps" }]);
  assert.match(stderr, /initialize: agents: helper: "hooks": PreToolUse\[0\]\.hooks\[0\]\.statusMessage: unknown key "statusMessage" is ignored/);
});

for (const delivery of ["--managed-settings", "initialize"] as const) {
  test(`a call a managed settings' deny rule (${delivery}) refuses is said to be denied by the managed settings`, async (t) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_rm", name: "Bash", input: { command: "rm -f x.txt" } }] }, { text: "Could not." }] }));
    const dir = tempDir(t);
    const managed = { permissions: { deny: ["Bash(rm:*)"] } };
    const flags = delivery === "initialize" ? [] : ["--managed-settings", JSON.stringify(managed)];
    const stdin = (delivery === "initialize" ? controlLine("init-1", { subtype: "initialize", managedSettings: managed }) : "") + userLine("remove it");
    const { code, stdout, stderr } = await harness(
      ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", ...flags, ...STREAM_JSON],
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir },
      { stdin },
    ).result;
    assert.equal(code, 0, stderr);
    const denied = JSON.stringify(fake.requests[1]!.body.messages);
    assert.match(denied, /denied by the deny rule \\"Bash\(rm:\*\)\\".*the run's managed settings/);
  });
}

test("the initialize request's managed settings join --managed-settings' without widening its allowedMcpServers", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin = controlLine("init-1", { subtype: "initialize", sdkMcpServers: ["mine", "theirs"], managedSettings: { allowedMcpServers: [{ serverName: "theirs" }] } }) + userLine("hi");
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON, "--managed-settings", JSON.stringify({ allowedMcpServers: [{ serverName: "mine" }] })];
  const { code, stdout, stderr } = await harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }, { stdin }).result;
  assert.equal(code, 0, stderr);
  const lines = streamLinesOf(stdout);
  const init = lines.find((l) => l.type === "system" && l.subtype === "init");
  assert.deepEqual(init?.mcp_servers.map((s: { name: string }) => s.name), ["mine"], JSON.stringify(init?.mcp_servers));
  assert.match(stdout, /MCP server \\"theirs\\" of the program's own servers is not started: allowedMcpServers does not list its name/);
});

test("an initialize whose managed settings hold a restriction harness does not enforce is refused, naming it, and no message runs without it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin = controlLine("init-1", { subtype: "initialize", managedSettings: { sandbox: { network: { allowManagedDomainsOnly: true } } } }) + userLine("hi");
  const { code, stdout, stderr } = await run(fake.url, dir, stdin);
  assert.equal(code, 1);
  assert.equal(responsesOf(stdout).get("init-1")?.error, "initialize: managedSettings: sandbox.network.allowManagedDomainsOnly: a restriction harness does not enforce; leave it out rather than have the run go on without it");
  assert.match(stderr, /sandbox\.network\.allowManagedDomainsOnly: a restriction harness does not enforce/);
  assert.equal(streamLinesOf(stdout).find((l) => l.type === "result")?.is_error, true);
  assert.equal(fake.requests.length, 0);
});
