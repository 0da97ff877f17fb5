import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { processGone, waitFor, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { createAgentResources, resourceInternals } from "../resources.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

const hookGroup = (command: string, matcher?: string) => [{ ...(matcher && { matcher }), hooks: [{ type: "command", command }] }];

test("a PreToolUse hook that exits 2 blocks the call, even with bypassPermissions, and the model reads its stderr", async (t) => {
  const project = await tempProject(t);
  await project.write("precious.txt", "keep me");
  const guard = await project.hook("no-rm.sh", `input=$(cat)\nif printf '%s' "$input" | grep -q '"command":"rm '; then echo "rm is not allowed in this project" >&2; exit 2; fi\nexit 0`);
  await project.settings({ hooks: { PreToolUse: hookGroup(guard, "Bash") } });
  const { provider, result } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_rm", name: "Bash", input: { command: "rm precious.txt" } },
          { id: "toolu_ls", name: "Bash", input: { command: "ls" } },
        ],
      },
      { text: "The file stays." },
    ],
    { permissionMode: "bypassPermissions" },
  );

  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.read("precious.txt"), "keep me");
  const [rm, ls] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.deepEqual(rm, { type: "tool_result", tool_use_id: "toolu_rm", content: "Blocked by a PreToolUse hook: rm is not allowed in this project", is_error: true });
  assert.match(String(ls.content), /precious\.txt/);
});

test("a PreToolUse hook may rewrite the input and allow a call the rules would have asked about", async (t) => {
  const project = await tempProject(t);
  const rewrite = await project.hook(
    "rewrite.sh",
    `cat > /dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"house rule","updatedInput":{"command":"touch rewritten.txt"}}}'`,
  );
  await project.settings({ hooks: { PreToolUse: hookGroup(rewrite, "Bash") } });
  const { result } = await runInProject(project, [{ toolCalls: [{ name: "Bash", input: { command: "touch original.txt" } }] }, { text: "ok" }]);

  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.exists("rewritten.txt"), true);
  assert.equal(await project.exists("original.txt"), false);
});

test("a PreToolUse hook's additional context reaches the model with the tool result, whether the call runs or is refused", async (t) => {
  const project = await tempProject(t);
  const context = await project.hook(
    "context.sh",
    `input=$(cat)\nextra=''\nif printf '%s' "$input" | grep -q '"command":"rm '; then extra=',"permissionDecision":"deny","permissionDecisionReason":"no rm"'; fi\nprintf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Use the Makefile targets"%s}}' "$extra"`,
  );
  await project.settings({ hooks: { PreToolUse: hookGroup(context, "Bash") } });
  const { provider } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_echo", name: "Bash", input: { command: "echo ran" } },
          { id: "toolu_rm", name: "Bash", input: { command: "rm -f nothing" } },
        ],
      },
      { text: "ok" },
    ],
    { permissionMode: "bypassPermissions" },
  );

  const [echo, rm] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(echo.content, "ran\n\n<system-reminder>\nUse the Makefile targets\n</system-reminder>");
  assert.equal(rm.content, "Blocked by a PreToolUse hook: no rm\n\n<system-reminder>\nUse the Makefile targets\n</system-reminder>");
  assert.equal(rm.is_error, true);
});

test("a PostToolUse hook's additional context and block reason reach the model with the tool result", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "alpha\n");
  const post = await project.hook(
    "post.sh",
    `cat > /dev/null\necho '{"decision":"block","reason":"a.txt is generated; edit a.src instead","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Remember to run the linter"}}'`,
  );
  await project.settings({ hooks: { PostToolUse: hookGroup(post, "Read") } });
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ id: "toolu_r", name: "Read", input: { file_path: "a.txt" } }] }, { text: "ok" }]);

  const [block] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  const content = String(block.content);
  assert.equal(block.is_error, undefined);
  assert.equal(
    content,
    "     1\talpha\n\nPostToolUse hook feedback:\na.txt is generated; edit a.src instead\n\n<system-reminder>\nRemember to run the linter\n</system-reminder>",
  );
  const completed = events.find((e) => e.type === "tool.completed");
  assert.ok(completed?.type === "tool.completed");
  assert.equal(completed.output, "     1\talpha", "the event shows the tool's own output");
});

test("a UserPromptSubmit hook can block the prompt: nothing reaches the model or the transcript", async (t) => {
  const project = await tempProject(t);
  const screen = await project.hook("screen.sh", `if grep -q password; then echo '{"decision":"block","reason":"Prompts must not contain passwords"}'; fi`);
  await project.settings({ hooks: { UserPromptSubmit: hookGroup(screen) } });
  const history: ModelMessage[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "Hello." }] },
  ];
  const { provider, result } = await runInProject(project, [{ text: "never" }], { prompt: "my password is hunter2", history });

  assert.equal(result.stopReason, "error");
  assert.equal(result.errorMessage, "Prompts must not contain passwords");
  assert.equal(provider.requests.length, 0);
  assert.deepEqual(result.transcript, history);
});

test("UserPromptSubmit and SessionStart context is added to the user message as system reminders", async (t) => {
  const project = await tempProject(t);
  const submit = await project.hook("submit.sh", "cat > /dev/null\necho 'Today is release day.'");
  const start = await project.hook("start.sh", `input=$(cat)\nprintf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/starts.log"\necho 'Branch main is frozen.'`);
  await project.settings({ hooks: { UserPromptSubmit: hookGroup(submit), SessionStart: hookGroup(start) } });
  const resources = createAgentResources();
  t.after(() => resources.dispose());

  const first = await runInProject(project, [{ text: "Noted." }], { prompt: "Ship it", resources });
  const sent = withoutCacheMarks(first.provider.requests[0].messages);
  assert.deepEqual(sent[0].content, [
    { type: "text", text: "Ship it" },
    { type: "text", text: "<system-reminder>\nSessionStart hook additional context: Branch main is frozen.\n</system-reminder>" },
    { type: "text", text: "<system-reminder>\nUserPromptSubmit hook additional context: Today is release day.\n</system-reminder>" },
  ]);
  assert.deepEqual(first.result.transcript[0], sent[0], "the transcript keeps what the model was sent");

  await runInProject(project, [{ text: "Again." }], { prompt: "And now?", history: first.result.transcript, resources });
  const starts = (await project.read("starts.log")).trim().split("\n").map((line) => JSON.parse(line) as { source: string; hook_event_name: string; model?: string });
  assert.deepEqual(
    starts.map((s) => [s.hook_event_name, s.source, s.model]),
    [["SessionStart", "startup", "test-model"]],
    "SessionStart runs once for the resources, and is told the model, as in Claude Code",
  );
});

test("a Stop hook that blocks keeps the agent going once, then lets it stop", async (t) => {
  const project = await tempProject(t);
  const stop = await project.hook(
    "stop.sh",
    `input=$(cat)\nprintf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/stops.log"\nif printf '%s' "$input" | grep -q '"stop_hook_active":false'; then echo '{"decision":"block","reason":"Run the tests before you stop."}'; fi`,
  );
  await project.settings({ hooks: { Stop: hookGroup(stop) } });
  const { provider, result } = await runInProject(project, [{ text: "Done." }, { text: "Tests pass. Done." }]);

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "Tests pass. Done.");
  assert.equal(provider.requests.length, 2);
  assert.deepEqual(withoutCacheMarks(provider.requests[1].messages).at(-1), { role: "user", content: "Stop hook feedback:\nRun the tests before you stop." });
  const stops = (await project.read("stops.log")).trim().split("\n").map((line) => JSON.parse(line) as { stop_hook_active: boolean });
  assert.deepEqual(
    stops.map((s) => s.stop_hook_active),
    [false, true],
  );
});

test("hooks see the settings' env; a failing hook and a hook's systemMessage become notices", async (t) => {
  const project = await tempProject(t);
  const env = await project.hook("env.sh", `cat > /dev/null\necho "$DEPLOY_TARGET" > "$CLAUDE_PROJECT_DIR/target.txt"\necho '{"systemMessage":"Deploys are paused"}'`);
  const broken = await project.hook("broken.sh", "cat > /dev/null\necho 'config missing' >&2\nexit 1");
  await project.settings({ env: { DEPLOY_TARGET: "staging" }, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: env }, { type: "command", command: broken }] }] } });
  const { events } = await runInProject(project, [{ text: "ok" }]);

  assert.equal((await project.read("target.txt")).trim(), "staging");
  const notices = events.filter((e) => e.type === "notice");
  assert.ok(notices.some((n) => n.level === "warning" && n.message === "Deploys are paused"));
  assert.ok(notices.some((n) => n.level === "warning" && /broken\.sh.*failed with exit code 1: config missing/.test(n.message)));
});

test("asking for approval fires the Notification hook", async (t) => {
  const project = await tempProject(t);
  const notify = await project.hook("notify.sh", `cat > "$CLAUDE_PROJECT_DIR/notification.json"`);
  await project.settings({ hooks: { Notification: hookGroup(notify) } });
  await runInProject(project, [{ toolCalls: [{ name: "Write", input: { file_path: "n.txt", content: "x" } }] }, { text: "ok" }], {
    approve: async () => ({ behavior: "allow" }),
  });
  const input = JSON.parse(await project.read("notification.json")) as Record<string, unknown>;
  assert.equal(input.hook_event_name, "Notification");
  assert.equal(input.message, "Claude needs your permission to use Write");
  assert.equal(input.notification_type, "permission_prompt");
});

test("PermissionRequest hooks answer calls that would be put to the user: allow (with a new input), deny, or leave them to the user", async (t) => {
  const project = await tempProject(t);
  const decider = await project.hook(
    "decide.sh",
    [
      "input=$(cat)",
      `printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/requests.log"`,
      `case "$input" in`,
      `  *'"command":"touch allowed.txt"'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"touch rewritten.txt"}}}}' ;;`,
      `  *'"command":"touch denied.txt"'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not here"}}}' ;;`,
      "esac",
    ].join("\n"),
  );
  await project.settings({ hooks: { PermissionRequest: hookGroup(decider, "Bash") } });
  const asked: string[] = [];
  const { provider } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_a", name: "Bash", input: { command: "touch allowed.txt" } },
          { id: "toolu_d", name: "Bash", input: { command: "touch denied.txt" } },
          { id: "toolu_u", name: "Bash", input: { command: "touch asked.txt" } },
          { id: "toolu_r", name: "Read", input: { file_path: "requests.log" } },
        ],
      },
      { text: "ok" },
    ],
    {
      approve: async (request) => {
        asked.push(String(request.input.command));
        return { behavior: "allow" };
      },
    },
  );
  assert.deepEqual(asked, ["touch asked.txt"], "only the call the hooks left alone was put to the user");
  assert.equal(await project.exists("rewritten.txt"), true);
  assert.equal(await project.exists("allowed.txt"), false);
  assert.equal(await project.exists("denied.txt"), false);
  assert.equal(await project.exists("asked.txt"), true);
  const results = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(results.find((r) => r.tool_use_id === "toolu_d")?.content, "Denied by a PermissionRequest hook: not here");
  const inputs = (await project.read("requests.log")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(inputs.map((i) => [i.hook_event_name, i.tool_name]), Array(3).fill(["PermissionRequest", "Bash"]), "the Read needed no approval");
});

test("in a run with no one to ask, a PermissionRequest hook's allow still runs the call", async (t) => {
  const project = await tempProject(t);
  const allow = await project.hook("allow.sh", `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`);
  await project.settings({ hooks: { PermissionRequest: hookGroup(allow, "Write") } });
  const { result } = await runInProject(project, [{ toolCalls: [{ name: "Write", input: { file_path: "w.txt", content: "x" } }] }, { text: "ok" }]);
  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.read("w.txt"), "x");
});

test("a hook that answers continue: false ends the run after the current step, with its reason", async (t) => {
  const project = await tempProject(t);
  const halt = await project.hook("halt.sh", `cat > /dev/null\necho '{"continue":false,"stopReason":"Build is broken; stopping."}'`);
  await project.settings({ hooks: { PostToolUse: hookGroup(halt, "Glob") } });
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ name: "Glob", input: { pattern: "*" } }] }, { text: "never" }]);

  assert.equal(result.stopReason, "error");
  assert.equal(result.errorMessage, "Build is broken; stopping.");
  assert.equal(provider.requests.length, 1);
  assert.equal(result.transcript.at(-1)?.role, "user", "the tool result is kept, so the next prompt continues from it");
});

test("hooks get Claude Code's tool_response shapes and a transcript_path to the conversation so far", async (t) => {
  const project = await tempProject(t);
  const seen = `${project.root}/seen.jsonl`;
  // Each hook call appends its input, and the transcript file's line count at that moment.
  const log = await project.hook(
    "log.sh",
    `input=$(cat)\npath=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p')\nprintf '%s\\t%s\\n' "$(wc -l < "$path")" "$input" >> "${seen}"\ncp "$path" "${project.root}/last-transcript.jsonl"`,
  );
  await project.settings({ hooks: { PostToolUse: hookGroup(log), Stop: hookGroup(log) } });
  await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_w", name: "Write", input: { file_path: "a.txt", content: "hi\n" } },
          { id: "toolu_b", name: "Bash", input: { command: "echo out" } },
        ],
      },
      { text: "All done." },
    ],
    { permissionMode: "bypassPermissions" },
  );
  const calls = (await project.read("seen.jsonl"))
    .trim()
    .split("\n")
    .map((line) => {
      const [lines, input] = line.split("\t");
      return { lines: Number(lines), input: JSON.parse(input!) };
    });
  const post = calls.filter((c) => c.input.hook_event_name === "PostToolUse");
  const byTool = Object.fromEntries(post.map((c) => [c.input.tool_name, c.input.tool_response]));
  assert.deepEqual(byTool.Write, { filePath: "a.txt", content: "hi\n", success: true });
  assert.deepEqual(byTool.Bash, { stdout: "out", stderr: "", interrupted: false, isImage: false });
  // The transcript: the prompt and the reply with the tool calls while they ran; at Stop, the
  // tool results and the final answer too.
  assert.ok(post.every((c) => c.lines === 2), JSON.stringify(post.map((c) => c.lines)));
  const stop = calls.find((c) => c.input.hook_event_name === "Stop")!;
  assert.equal(stop.lines, 4);
  const lines = (await project.read("last-transcript.jsonl")).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.type), ["user", "assistant", "user", "assistant"]);
  assert.deepEqual(lines[3].message, { role: "assistant", content: [{ type: "text", text: "All done." }] });
  // The file is the session's, private to this process, and gone with the session.
  assert.match(stop.input.transcript_path, /harness-transcripts-[^/]+\/[^/]+\.jsonl$/);
  await assert.rejects(readFile(stop.input.transcript_path), { code: "ENOENT" });
});

test("a PostToolUseFailure hook hears a failed call with its error, and what it adds reaches the model", async (t) => {
  const project = await tempProject(t);
  const seen = `${project.root}/failure.json`;
  const hook = await project.hook("failure.sh", `cat > "${seen}"\necho '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"Try make -k"}}'`);
  await project.settings({ hooks: { PostToolUseFailure: hookGroup(hook, "Bash"), PostToolUse: hookGroup(`touch "${project.root}/post-ran"`) } });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_f", name: "Bash", input: { command: "echo broke >&2; exit 2" } }] }, { text: "ok" }], { permissionMode: "bypassPermissions" });
  const input = JSON.parse(await project.read("failure.json"));
  assert.deepEqual([input.hook_event_name, input.tool_name, input.tool_use_id, input.is_interrupt], ["PostToolUseFailure", "Bash", "toolu_f", false]);
  assert.match(input.error, /broke/);
  assert.equal(await project.exists("post-ran"), false, "PostToolUse is for calls that succeeded");
  const [result] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.match(String(result.content), /<system-reminder>\nTry make -k\n<\/system-reminder>/);
});

test("a PostToolUseFailure hook that exits 2 has its stderr shown to the model with the failed call's result", async (t) => {
  const project = await tempProject(t);
  const hook = await project.hook("failure.sh", `cat > /dev/null\necho "run make deps first" >&2\nexit 2`);
  await project.settings({ hooks: { PostToolUseFailure: hookGroup(hook, "Bash") } });
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ id: "toolu_f", name: "Bash", input: { command: "echo broke >&2; exit 1" } }] }, { text: "ok" }], { permissionMode: "bypassPermissions" });
  const [result] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(result.is_error, true);
  assert.match(String(result.content), /broke[\s\S]*\n\nPostToolUseFailure hook feedback:\nrun make deps first$/);
  assert.ok(!events.some((e) => e.type === "notice" && /run make deps first/.test(e.message)), "the feedback is the model's, not a warning");
});

test("a hook that prints megabytes puts at most 10,000 characters of it into the conversation, saying how much was cut", async (t) => {
  const project = await tempProject(t);
  const flood = await project.hook("flood.sh", `cat > /dev/null\nhead -c 3000000 /dev/zero | tr '\\0' 'a'`);
  const floodErr = await project.hook("flood-err.sh", `cat > /dev/null\nhead -c 3000000 /dev/zero | tr '\\0' 'b' >&2\nexit 2`);
  await project.settings({ hooks: { UserPromptSubmit: hookGroup(flood), PostToolUse: hookGroup(floodErr, "Bash") } });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_b", name: "Bash", input: { command: "echo ran" } }] }, { text: "ok" }], { permissionMode: "bypassPermissions" });

  const sent = JSON.stringify(provider.requests[1].messages);
  assert.ok(sent.length < 40_000, `the conversation holds ${sent.length} characters`);
  assert.match(sent, /a{10000}\\n\\n\[Hook output truncated: 1,038,\d{3} of 1,048,\d{3} characters were cut\.\]/);
  const [result] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.match(String(result.content), /^ran\n\nPostToolUse hook feedback:\nb{10000}\n\n\[Hook output truncated: [\d,]+ of [\d,]+ characters were cut\.\]$/);
});

test("a SessionEnd hook can read the conversation at its transcript_path when the resources are disposed", async (t) => {
  const project = await tempProject(t);
  const end = await project.hook("end.sh", `input=$(cat)\nprintf '%s' "$input" > "$CLAUDE_PROJECT_DIR/end.json"\ncp "$(printf '%s' "$input" | sed -E 's/.*"transcript_path":"([^"]*)".*/\\1/')" "$CLAUDE_PROJECT_DIR/archived.jsonl"`);
  await project.settings({ hooks: { SessionEnd: hookGroup(end) } });
  const resources = createAgentResources();
  await runInProject(project, [{ text: "All done." }], { prompt: "Ship it", resources });
  await resources.dispose();

  const input = JSON.parse(await project.read("end.json")) as { hook_event_name: string; reason: string; transcript_path: string };
  assert.deepEqual([input.hook_event_name, input.reason], ["SessionEnd", "other"]);
  assert.notEqual(input.transcript_path, "");
  const lines = (await project.read("archived.jsonl")).trim().split("\n").map((line) => JSON.parse(line) as { message: { content: unknown } });
  assert.deepEqual(lines.map((line) => line.message.content), ["Ship it", [{ type: "text", text: "All done." }]]);
});

test("resources disposed for a reason tell SessionEnd that reason; the first dispose's is the one told", async (t) => {
  const project = await tempProject(t);
  const end = await project.hook("end-reason.sh", `cat > "$CLAUDE_PROJECT_DIR/end-reason.json"`);
  await project.settings({ hooks: { SessionEnd: hookGroup(end) } });
  const resources = createAgentResources();
  await runInProject(project, [{ text: "Bye." }], { prompt: "hi", resources });
  await Promise.all([resources.dispose("prompt_input_exit"), resources.dispose("other")]);
  assert.equal((JSON.parse(await project.read("end-reason.json")) as { reason: string }).reason, "prompt_input_exit");
});

test("what a SessionStart hook writes to CLAUDE_ENV_FILE holds for every Bash command of the conversation, background ones included", async (t) => {
  const project = await tempProject(t);
  const start = await project.hook("env.sh", `cat > /dev/null\necho 'export GREETING="from the hook"' >> "$CLAUDE_ENV_FILE"\necho "$CLAUDE_ENV_FILE" > "$CLAUDE_PROJECT_DIR/env-file-path"`);
  const other = await project.hook("other.sh", `cat > /dev/null\necho "\${CLAUDE_ENV_FILE:-none}" > "$CLAUDE_PROJECT_DIR/other-env"`);
  await project.settings({ hooks: { SessionStart: hookGroup(start), UserPromptSubmit: hookGroup(other) } });
  const resources = createAgentResources();
  t.after(() => resources.dispose());

  const first = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_echo", name: "Bash", input: { command: 'echo "greeting: $GREETING"' } },
          { id: "toolu_bg", name: "Bash", input: { command: 'echo "background: $GREETING" > bg.txt', run_in_background: true } },
        ],
      },
      { text: "ok" },
    ],
    { permissionMode: "bypassPermissions", resources },
  );
  const [echo] = resultsIn(withoutCacheMarks(first.provider.requests[1].messages).at(-1));
  assert.equal(echo.content, "greeting: from the hook");
  assert.equal((await project.read("other-env")).trim(), "none", "only SessionStart hooks get the file");

  // The next prompt of the conversation: SessionStart does not run again, the variable still holds.
  const second = await runInProject(project, [{ toolCalls: [{ id: "toolu_again", name: "Bash", input: { command: 'echo "again: $GREETING"' } }] }, { text: "ok" }], {
    permissionMode: "bypassPermissions",
    resources,
    history: first.result.transcript,
  });
  const [again] = resultsIn(withoutCacheMarks(second.provider.requests[1].messages).at(-1));
  assert.equal(again.content, "again: from the hook");
  await waitFor(() => project.exists("bg.txt"), "the background command to write");
  assert.equal((await project.read("bg.txt")).trim(), "background: from the hook");
  const file = (await project.read("env-file-path")).trim();
  await resources.dispose();
  await assert.rejects(readFile(file), { code: "ENOENT" }, "the env file goes with the conversation");
});

test("an async hook lets the run go on, and what it says reaches the model with the next request, its failures the user", async (t) => {
  const project = await tempProject(t);
  // Both hooks end only once the test opens the gate, after the run; should the run wait for them,
  // the gate opens after 20 s so that the test fails rather than hangs.
  const gated = `cat > /dev/null\nuntil [ -e "$CLAUDE_PROJECT_DIR/gate" ]; do sleep 0.02; done`;
  const tests = await project.hook("tests.sh", `${gated}\necho '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"The test suite failed: 2 of 40."}}'`);
  const lint = await project.hook("lint.sh", `${gated}\necho "eslint is not installed" >&2\nexit 1`);
  await project.settings({ hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: tests, async: true }, { type: "command", command: lint, async: true }] }] } });
  const resources = createAgentResources();
  t.after(() => resources.dispose());

  const fallback = setTimeout(() => void project.write("gate", ""), 20_000);
  const first = await runInProject(project, [{ toolCalls: [{ name: "Write", input: { file_path: "a.ts", content: "x" } }] }, { text: "Written." }], { permissionMode: "acceptEdits", resources });
  assert.equal(await project.exists("gate"), false, "the run waited for its async hooks");
  assert.equal(first.result.stopReason, "end_turn");
  assert.doesNotMatch(JSON.stringify(first.provider.requests[1].messages), /test suite failed/, "not there yet when the next request left");
  await project.write("gate", "");
  clearTimeout(fallback);
  const reports = resourceInternals(resources).hookReports;
  await waitFor(() => (reports.messages.length > 0 && reports.context.length > 0) || undefined, "both async hooks to finish");

  const second = await runInProject(project, [{ text: "I will fix the tests." }], { prompt: "What now?", history: first.result.transcript, resources });
  const sent = withoutCacheMarks(second.provider.requests[0].messages).at(-1);
  assert.deepEqual(sent?.content, [
    { type: "text", text: "What now?" },
    { type: "text", text: "<system-reminder>\nPostToolUse hook additional context: The test suite failed: 2 of 40.\n</system-reminder>" },
  ]);
  const warnings = second.events.filter((e) => e.type === "notice" && e.level === "warning").map((e) => (e as { message: string }).message);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /PostToolUse hook `.*lint\.sh"` failed with exit code 1: eslint is not installed/);
});

test("a run cancelled while its Stop hook runs ends cancelled, and the hook's process is killed", async (t) => {
  const project = await tempProject(t);
  const stop = await project.hook("stop.sh", `echo $$ > "$CLAUDE_PROJECT_DIR/stop.pid"\nsleep 30\necho '{"decision":"block","reason":"Not yet."}'`);
  await project.settings({ hooks: { Stop: hookGroup(stop) } });
  const controller = new AbortController();
  const running = runInProject(project, [{ text: "Done." }, { text: "never asked" }], { signal: controller.signal });
  const pid = await waitFor(async () => Number((await project.read("stop.pid").catch(() => "")).trim()) || undefined, "the Stop hook to start");
  controller.abort();
  const { result, provider } = await running;

  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.requests.length, 1);
  assert.ok(await waitFor(() => processGone(pid).then((gone) => gone || undefined), "the hook's process to end", 5_000));
});

test("StopFailure hooks hear of a turn that a failed model request ended, matched on the kind of failure", async (t) => {
  const project = await tempProject(t);
  const record = await project.hook("failure.sh", `cat >> "$CLAUDE_PROJECT_DIR/failures.log"; echo >> "$CLAUDE_PROJECT_DIR/failures.log"; echo '{"continue":false}'; exit 2`);
  const never = await project.hook("never.sh", `touch "$CLAUDE_PROJECT_DIR/billing-hook-ran"`);
  await project.settings({ hooks: { StopFailure: [{ matcher: "rate_limit|server_error", hooks: [{ type: "command", command: record }] }, { matcher: "billing_error", hooks: [{ type: "command", command: never }] }] } });
  const { result, events } = await runInProject(project, [
    { text: "Working on it", error: "Anthropic API error 429 (rate_limit_error): Slow down — gave up after 3 attempts", errorInfo: { kind: "rate_limit", code: "429" } },
  ]);

  assert.equal(result.stopReason, "error");
  assert.match(result.errorMessage!, /429/);
  const [line] = (await project.read("failures.log")).trim().split("\n");
  const input = JSON.parse(line!);
  assert.equal(input.hook_event_name, "StopFailure");
  assert.equal(input.error_type, "rate_limit");
  assert.equal(input.error, "429");
  assert.match(input.error_message, /gave up after 3 attempts/);
  assert.equal(input.last_assistant_message, "Working on it");
  assert.equal(await project.exists("billing-hook-ran"), false);
  assert.ok(!events.some((e) => e.type === "notice" && /StopFailure/.test(e.message)), "what the hook said is ignored");
});

test("an async SessionEnd hook runs when the conversation's resources are disposed", async (t) => {
  const project = await tempProject(t);
  // The hook ends only once the test opens the gate, after disposing; should disposing wait for it,
  // the gate opens after 20 s so that the test fails rather than hangs.
  const end = await project.hook("end.sh", `input=$(cat)\nuntil [ -e "$CLAUDE_PROJECT_DIR/gate" ]; do sleep 0.02; done\nprintf '%s' "$input" > "$CLAUDE_PROJECT_DIR/ended.json"`);
  await project.settings({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: end, async: true }] }] } });
  const resources = createAgentResources();
  await runInProject(project, [{ text: "Hello." }], { resources });

  const fallback = setTimeout(() => void project.write("gate", ""), 20_000);
  await resources.dispose();
  assert.equal(await project.exists("gate"), false, "disposing waited for it");
  await project.write("gate", "");
  clearTimeout(fallback);
  await waitFor(async () => (await project.exists("ended.json")) || undefined, "the async SessionEnd hook to run");
  assert.equal(JSON.parse(await project.read("ended.json")).hook_event_name, "SessionEnd");
});
