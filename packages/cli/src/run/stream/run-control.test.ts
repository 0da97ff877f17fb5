// `harness run --input-format stream-json`'s control protocol on the wire, as Claude Code speaks it:
// control_request lines on standard input answered by control_response lines on stdout.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { controlLine, harness, jsonLine, STREAM_JSON, streamLinesOf, tempDir, userLine, withFake } from "../../test-support.ts";


test("control requests: initialize is answered, an unknown subtype gets an error response, and the turn runs", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hello." }] }));
  const dir = tempDir(t);
  const stdin = controlLine("init-1", { subtype: "initialize" }) + controlLine("odd-1", { subtype: "frobnicate" }) + jsonLine({ type: "control_request", request_id: "bad-1" }) + jsonLine({ type: "keep_alive" }) + userLine("hi");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 0, stderr);
  const lines = streamLinesOf(stdout);
  const responses = lines.filter((l) => l.type === "control_response").map((l) => l.response);
  const init = responses.find((r) => r.request_id === "init-1");
  assert.equal(init?.subtype, "success", JSON.stringify(responses));
  assert.ok(Array.isArray(init.response.commands) && Array.isArray(init.response.models) && Array.isArray(init.response.agents), JSON.stringify(init));
  const odd = responses.find((r) => r.request_id === "odd-1");
  assert.equal(odd?.subtype, "error");
  assert.match(odd.error, /frobnicate/);
  const bad = responses.find((r) => r.request_id === "bad-1");
  assert.equal(bad?.subtype, "error");
  assert.deepEqual(lines.filter((l) => l.type === "result").map((l) => [l.subtype, l.result]), [["success", "Hello."]]);
  assert.equal(fake.requests.length, 1);
});

test("control requests: interrupt with no turn under way succeeds; set_permission_mode refuses a mode it does not know and bypassPermissions unless allowed", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Fine." }] }));
  const dir = tempDir(t);
  const stdin =
    controlLine("i-1", { subtype: "interrupt" }) +
    controlLine("m-1", { subtype: "set_permission_mode", mode: "sideways" }) +
    controlLine("m-2", { subtype: "set_permission_mode", mode: "bypassPermissions" }) +
    controlLine("m-3", { subtype: "set_permission_mode", mode: "acceptEdits" }) +
    controlLine("s-1", { subtype: "set_model", model: "claude-opus-4-6" }) +
    userLine("hi");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 0, stderr);
  const responses = new Map(streamLinesOf(stdout).filter((l) => l.type === "control_response").map((l) => [l.response.request_id, l.response]));
  assert.equal(responses.get("i-1")?.subtype, "success");
  assert.equal(responses.get("m-1")?.subtype, "error");
  assert.match(responses.get("m-1")?.error, /sideways/);
  assert.equal(responses.get("m-2")?.subtype, "error");
  assert.match(responses.get("m-2")?.error, /--allow-dangerously-skip-permissions/);
  assert.equal(responses.get("m-3")?.subtype, "success");
  assert.equal(responses.get("s-1")?.subtype, "success");
  assert.equal(fake.requests[0]!.body.model, "claude-opus-4-6", "the turn after set_model uses its model");
  const init = streamLinesOf(stdout).find((l) => l.type === "system" && l.subtype === "init");
  assert.equal(init?.permissionMode, "acceptEdits");
});

test("can_use_tool: an allow whose updatedInput is not an object refuses the call instead of running the input asked about", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_1", name: "Bash", input: { command: "touch asked.txt" } }] }, { text: "Done." }] }));
  const dir = tempDir(t);
  const run = harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-prompt-tool", "stdio", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
    stdin: { open: true },
    onStdout: (text) => {
      const ask = text.split("\n").find((l) => l.includes('"can_use_tool"'));
      if (!ask || answered) return;
      answered = true;
      const { request_id } = JSON.parse(ask) as { request_id: string };
      run.child.stdin!.end(jsonLine({ type: "control_response", response: { subtype: "success", request_id, response: { behavior: "allow", updatedInput: ["touch other.txt"] } } }));
    },
  });
  let answered = false;
  run.child.stdin!.write(userLine("make a file"));
  const { code, stdout, stderr } = await run.result;
  assert.equal(code, 0, stderr);
  assert.ok(answered);
  assert.ok(!existsSync(join(dir, "asked.txt")), "the call asked about did not run on an answer that changed it in a way that cannot be read");
  const result = streamLinesOf(stdout).find((l) => l.type === "result");
  assert.deepEqual(result?.permission_denials, [{ tool_name: "Bash", tool_use_id: "toolu_1", tool_input: { command: "touch asked.txt" } }]);
  assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /updatedInput/);
});

test("interrupt sent right after a user message stops that message's turn, though it had not begun yet", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Next." }] }));
  const dir = tempDir(t);
  const stdin = userLine("take your time") + controlLine("i-1", { subtype: "interrupt" }) + userLine("then this");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 0, stderr);
  const lines = streamLinesOf(stdout);
  assert.equal(lines.find((l) => l.type === "control_response")?.response.subtype, "success");
  assert.deepEqual(lines.filter((l) => l.type === "result").map((l) => [l.subtype, l.is_error]), [["error_during_execution", false], ["success", false]]);
  assert.equal(lines.filter((l) => l.type === "result")[1]?.result, "Next.");
  assert.equal(fake.requests.length, 1, "the interrupted turn asked the model nothing");
});

test("control requests: mcp_status before any turn lists the servers named at initialize as pending; set_max_thinking_tokens refuses what is not a number of tokens; what initialize cannot act on, or cannot read, is said", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin =
    controlLine("init-0", { subtype: "initialize", sdkMcpServers: ["calc"] }) +
    controlLine("init-1", { subtype: "initialize", managedSettings: { model: "x", allowManagedHooksOnly: 1 }, disallowedTools: ["Bash"] }) +
    controlLine("init-2", { subtype: "initialize", settings: { permissions: { allow: "Bash" } } }) +
    controlLine("init-3", { subtype: "initialize", plugins: [{ type: "git", url: "https://example.com/p.git" }] }) +
    controlLine("init-4", { subtype: "initialize", disallowedTools: "Bash" }) +
    controlLine("init-5", { subtype: "initialize", hooks: { PreToolUse: [{ hookCallbackIds: ["hook_0"], onFailure: "stop" }] } }) +
    controlLine("init-6", { subtype: "initialize", hooks: { PostToolUse: [{ hookCallbackIds: ["hook_1"], contextOnly: true, onFailure: "block" }] } }) +
    controlLine("st-1", { subtype: "mcp_status" }) +
    controlLine("th-1", { subtype: "set_max_thinking_tokens", max_thinking_tokens: -5 }) +
    controlLine("th-2", { subtype: "set_max_thinking_tokens", max_thinking_tokens: null }) +
    userLine("hi");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 0, stderr);
  const responses = new Map(streamLinesOf(stdout).filter((l) => l.type === "control_response").map((l) => [l.response.request_id, l.response]));
  assert.equal(responses.get("init-1")?.subtype, "error");
  assert.equal(responses.get("init-1")?.error, "initialize: managedSettings: allowManagedHooksOnly: must be true or false, not number 1");
  assert.match(stderr, /managedSettings: allowManagedHooksOnly: must be true or false/);
  assert.match(responses.get("init-2")?.error, /^initialize: settings \(permissions\.allow\): /);
  assert.match(responses.get("init-3")?.error, /^initialize: plugins\[0\]\.type must be "local"/);
  assert.match(responses.get("init-4")?.error, /^initialize: disallowedTools must be a list of permission rules/);
  assert.equal(responses.get("init-6")?.subtype, "success");
  assert.match(stderr, /initialize: hooks\.PostToolUse\[0\]\.contextOnly is not acted on by harness run/);
  assert.match(responses.get("init-5")?.error, /^initialize: hooks\.PreToolUse\[0\]\.onFailure must be "continue" or "block", not "stop"/);
  assert.deepEqual(responses.get("st-1")?.response, { mcpServers: [{ name: "calc", status: "pending" }] });
  assert.equal(responses.get("th-1")?.subtype, "error");
  assert.match(responses.get("th-1")?.error, /max_thinking_tokens must be a whole number/);
  assert.equal(responses.get("th-2")?.subtype, "success");
});

test("initialize refuses settings when the run was started with --settings too, rather than drop either; the message after it is not run", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const dir = tempDir(t);
  const stdin = controlLine("init-1", { subtype: "initialize", settings: { env: { WHO: "initialize" } } }) + userLine("hi");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--settings", '{"env": {"WHO": "flag"}}', ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 1, stderr);
  const response = streamLinesOf(stdout).find((l) => l.type === "control_response")?.response;
  assert.equal(response?.subtype, "error");
  assert.match(response?.error, /^initialize: settings: the run was started with --settings too/);
  const result = streamLinesOf(stdout).find((l) => l.type === "result");
  assert.equal(result?.is_error, true);
  assert.match(result?.errors[0], /initialize request was refused \(initialize: settings: the run was started with --settings too/);
  assert.equal(fake.requests.length, 0);
});
