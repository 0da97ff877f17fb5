import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { runHooks } from "./run-hooks.ts";
import { createHookSandbox, isRunning, waitFor } from "./testing.ts";
import type { HookSandbox } from "./testing.ts";
import type { AsyncHookReport, CommandHook, HooksConfig, PreToolUseInput } from "./types.ts";

let box: HookSandbox;
before(() => {
  box = createHookSandbox();
});
after(() => box.remove());

const base = { session_id: "sess-1", transcript_path: "/tmp/transcript.jsonl", cwd: "/work/space" };
const preToolUse = (tool_name = "Bash", tool_input: Record<string, unknown> = { command: "ls" }): PreToolUseInput => ({
  ...base,
  hook_event_name: "PreToolUse",
  tool_name,
  tool_input,
  tool_use_id: "toolu_1",
});
const opts = (signal = new AbortController().signal) => ({ cwd: "/work/space", projectDir: box.dir, signal });
const cmd = (command: string, timeout?: number): CommandHook =>
  timeout === undefined ? { type: "command", command } : { type: "command", command, timeout };
const on = (event: keyof HooksConfig, ...hooks: CommandHook[]): HooksConfig => ({ [event]: [{ hooks }] });

describe("runHooks: the process", () => {
  test("the hook receives the event as JSON on stdin", async () => {
    const hook = box.script("stdin.sh", 'cat > "$CLAUDE_PROJECT_DIR/stdin.json"');
    const input = preToolUse("Write", { file_path: "/a.txt", content: "hi" });
    await runHooks(on("PreToolUse", cmd(hook)), "PreToolUse", input, opts());
    assert.deepEqual(JSON.parse(box.read("stdin.json")), input);
  });

  test("the input's cwd defaults to the agent's working directory", async () => {
    const hook = box.script("stdin-cwd.sh", 'cat > "$CLAUDE_PROJECT_DIR/stdin-cwd.json"');
    await runHooks(on("UserPromptSubmit", cmd(hook)), "UserPromptSubmit", { session_id: "s", transcript_path: "/t", hook_event_name: "UserPromptSubmit", prompt: "hello" }, {
      ...opts(),
      cwd: "/agent/cwd",
    });
    assert.deepEqual(JSON.parse(box.read("stdin-cwd.json")), {
      session_id: "s",
      transcript_path: "/t",
      hook_event_name: "UserPromptSubmit",
      prompt: "hello",
      cwd: "/agent/cwd",
    });
  });

  test("hooks run in the project directory with CLAUDE_PROJECT_DIR and the extra environment", async () => {
    const hook = 'printf "%s\\n%s\\n%s" "$CLAUDE_PROJECT_DIR" "$PWD" "$HOOK_EXTRA" > env.txt';
    await runHooks(on("Stop", cmd(hook)), "Stop", { ...base, hook_event_name: "Stop", stop_hook_active: false }, {
      ...opts(),
      env: { HOOK_EXTRA: "extra-value" },
    });
    assert.deepEqual(box.read("env.txt").split("\n"), [box.dir, box.dir, "extra-value"]);
  });

  test("exit 0 with no output changes nothing", async () => {
    const result = await runHooks(on("PreToolUse", cmd("exit 0")), "PreToolUse", preToolUse(), opts());
    assert.equal(result.blocked, false);
    assert.equal(result.permissionDecision, undefined);
    assert.equal(result.continue, true);
    assert.deepEqual(result.userMessages, []);
    assert.equal(result.results.length, 1);
    assert.equal(result.results[0].exitCode, 0);
    assert.equal(result.results[0].timedOut, false);
  });

  test("exit 2 on PreToolUse denies the call with stderr as the reason", async () => {
    const result = await runHooks(on("PreToolUse", cmd('echo "rm is not allowed" >&2; exit 2')), "PreToolUse", preToolUse(), opts());
    assert.equal(result.permissionDecision, "deny");
    assert.equal(result.permissionDecisionReason, "rm is not allowed");
    assert.equal(result.blocked, true);
    assert.equal(result.blockReason, "rm is not allowed");
    assert.deepEqual(result.userMessages, []);
  });

  test("exit 2 blocks PostToolUse, UserPromptSubmit, Stop and SubagentStop with stderr", async () => {
    const hooks = { hooks: [cmd('echo "fix the lint errors" >&2; exit 2')] };
    const config: HooksConfig = { PostToolUse: [hooks], UserPromptSubmit: [hooks], Stop: [hooks], SubagentStop: [hooks] };
    const results = [
      await runHooks(config, "PostToolUse", { ...base, hook_event_name: "PostToolUse", tool_name: "Edit", tool_input: {}, tool_response: { ok: true }, tool_use_id: "t" }, opts()),
      await runHooks(config, "UserPromptSubmit", { ...base, hook_event_name: "UserPromptSubmit", prompt: "secret" }, opts()),
      await runHooks(config, "Stop", { ...base, hook_event_name: "Stop", stop_hook_active: false }, opts()),
      await runHooks(config, "SubagentStop", { ...base, hook_event_name: "SubagentStop", stop_hook_active: true, agent_id: "agent_1", agent_type: "Explore" }, opts()),
    ];
    for (const result of results) {
      assert.equal(result.blocked, true);
      assert.equal(result.blockReason, "fix the lint errors");
      assert.equal(result.permissionDecision, undefined);
    }
  });

  test("exit 2 on an event that cannot block only tells the user", async () => {
    const result = await runHooks(
      on("SessionStart", cmd('echo "could not load context" >&2; exit 2')),
      "SessionStart",
      { ...base, hook_event_name: "SessionStart", source: "startup" },
      opts(),
    );
    assert.equal(result.blocked, false);
    assert.equal(result.userMessages.length, 1);
    assert.match(result.userMessages[0], /could not load context/);
  });

  test("any other exit code is a non-blocking error shown to the user", async () => {
    const result = await runHooks(on("PreToolUse", cmd('echo "jq: command not found" >&2; exit 127')), "PreToolUse", preToolUse(), opts());
    assert.equal(result.blocked, false);
    assert.equal(result.permissionDecision, undefined);
    assert.equal(result.continue, true);
    assert.equal(result.userMessages.length, 1);
    assert.match(result.userMessages[0], /exit code 127: jq: command not found/);
    assert.equal(result.results[0].exitCode, 127);
  });

  test("JSON output counts only on exit 0", async () => {
    const deny = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}'`;
    const result = await runHooks(on("PreToolUse", cmd(`${deny}; exit 1`)), "PreToolUse", preToolUse(), opts());
    assert.equal(result.permissionDecision, undefined);
    assert.equal(result.blocked, false);
  });

  test("results come back in configuration order", async () => {
    const config = on("PreToolUse", cmd("sleep 0.3; echo slow"), cmd("echo fast"));
    const result = await runHooks(config, "PreToolUse", preToolUse(), opts());
    assert.deepEqual(result.results.map((r) => r.stdout.trim()), ["slow", "fast"]);
    assert.ok(result.results.every((r) => r.durationMs >= 0));
  });
});

describe("runHooks: matchers", () => {
  const matcherConfig = (marker: string, matcher: string): HooksConfig => ({
    PreToolUse: [{ matcher, hooks: [cmd(`echo ran >> ${marker}`)] }],
  });

  async function ranFor(matcher: string, tool: string): Promise<boolean> {
    const marker = `m-${Math.random().toString(36).slice(2)}`;
    const result = await runHooks(matcherConfig(marker, matcher), "PreToolUse", preToolUse(tool), opts());
    assert.equal(result.results.length, existsSync(box.path(marker)) ? 1 : 0);
    return existsSync(box.path(marker));
  }

  test("an exact name runs only for that tool", async () => {
    assert.equal(await ranFor("Bash", "Bash"), true);
    assert.equal(await ranFor("Bash", "BashOutput"), false);
  });

  test("alternatives run for each listed tool", async () => {
    assert.equal(await ranFor("Edit|Write", "Write"), true);
    assert.equal(await ranFor("Edit|Write", "Edit"), true);
    assert.equal(await ranFor("Edit|Write", "Read"), false);
  });

  test("a regex runs for every tool it matches", async () => {
    assert.equal(await ranFor("mcp__.*", "mcp__github__create_issue"), true);
    assert.equal(await ranFor("mcp__.*", "Bash"), false);
  });

  test("* and an empty matcher run for every tool", async () => {
    assert.equal(await ranFor("*", "Glob"), true);
    assert.equal(await ranFor("", "mcp__x__y"), true);
  });

  test("SessionStart selects on the source and PreCompact on the trigger", async () => {
    const config: HooksConfig = {
      SessionStart: [{ matcher: "resume|compact", hooks: [cmd("echo resumed")] }],
      PreCompact: [{ matcher: "manual", hooks: [cmd("echo manual")] }],
    };
    const start = (source: "startup" | "resume") => runHooks(config, "SessionStart", { ...base, hook_event_name: "SessionStart", source }, opts());
    assert.equal((await start("startup")).results.length, 0);
    assert.equal((await start("resume")).results.length, 1);
    const compact = (trigger: "manual" | "auto") =>
      runHooks(config, "PreCompact", { ...base, hook_event_name: "PreCompact", trigger, custom_instructions: "" }, opts());
    assert.equal((await compact("auto")).results.length, 0);
    assert.equal((await compact("manual")).results.length, 1);
  });

  test("events without matchers run every hook, whatever matcher is written", async () => {
    const config: HooksConfig = { UserPromptSubmit: [{ matcher: "Bash", hooks: [cmd("true")] }] };
    const result = await runHooks(config, "UserPromptSubmit", { ...base, hook_event_name: "UserPromptSubmit", prompt: "p" }, opts());
    assert.equal(result.results.length, 1);
  });

  test("an identical command selected twice runs once", async () => {
    const command = "echo once >> dedup.txt";
    const config: HooksConfig = {
      PreToolUse: [
        { matcher: "Bash", hooks: [cmd(command)] },
        { matcher: "*", hooks: [cmd(command), cmd("true")] },
      ],
    };
    const result = await runHooks(config, "PreToolUse", preToolUse(), opts());
    assert.equal(result.results.length, 2);
    assert.equal(box.read("dedup.txt"), "once\n");
  });
});

describe("runHooks: concurrency, timeouts and cancellation", () => {
  test("matching hooks run at the same time", async () => {
    // Each hook waits for the other's marker: they can only both succeed if they overlap.
    const waitForOther = (mine: string, other: string) =>
      `touch ${mine}; for i in $(seq 1 400); do [ -e ${other} ] && exit 0; sleep 0.05; done; echo "never saw ${other}" >&2; exit 1`;
    const config = on("PreToolUse", cmd(waitForOther("a.marker", "b.marker"), 60), cmd(waitForOther("b.marker", "a.marker"), 60));
    const result = await runHooks(config, "PreToolUse", preToolUse(), opts());
    assert.deepEqual(result.results.map((r) => r.exitCode), [0, 0]);
    assert.deepEqual(result.userMessages, []);
  });

  test("a hook past its timeout is killed with everything it started, as a non-blocking error", async () => {
    const hook = cmd("sleep 60 & echo $! > timeout-child.pid; wait", 3);
    const started = Date.now();
    const result = await runHooks(on("PreToolUse", hook, cmd("echo fine")), "PreToolUse", preToolUse(), opts());
    assert.ok(Date.now() - started < 30_000, "returned long before the sleep would end");
    assert.equal(result.results[0].timedOut, true);
    assert.equal(result.results[1].exitCode, 0);
    assert.equal(result.blocked, false);
    assert.equal(result.permissionDecision, undefined);
    assert.equal(result.userMessages.length, 1);
    assert.match(result.userMessages[0], /timed out after \d/);
    const pid = Number(box.read("timeout-child.pid"));
    await waitFor(() => !isRunning(pid));
  });

  test("what a hook leaves running when it exits is stopped with it", async () => {
    const hook = cmd("sleep 60 > /dev/null 2>&1 & echo $! > left-child.pid; sleep 61 & echo done");
    const result = await runHooks(on("PostToolUse", hook), "PostToolUse", { ...preToolUse(), hook_event_name: "PostToolUse", tool_response: {} } as never, opts());
    assert.equal(result.results[0].exitCode, 0);
    const pid = Number(box.read("left-child.pid"));
    await waitFor(() => !isRunning(pid));
  });

  test("cancelling kills running hooks and returns at once", async () => {
    const controller = new AbortController();
    const hook = cmd("sleep 60 & echo $! > abort-child.pid; wait");
    const started = Date.now();
    const pending = runHooks(on("PreToolUse", hook), "PreToolUse", preToolUse(), opts(controller.signal));
    await waitFor(() => existsSync(box.path("abort-child.pid")) && box.read("abort-child.pid").trim() !== "");
    const pid = Number(box.read("abort-child.pid"));
    controller.abort();
    const result = await pending;
    assert.ok(Date.now() - started < 30_000);
    assert.equal(result.results[0].aborted, true);
    assert.equal(result.blocked, false);
    assert.deepEqual(result.userMessages, []);
    await waitFor(() => !isRunning(pid));
  });

  test("nothing starts when the run is already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runHooks(on("PreToolUse", cmd("touch must-not-exist")), "PreToolUse", preToolUse(), opts(controller.signal));
    assert.equal(result.results[0].aborted, true);
    assert.equal(existsSync(box.path("must-not-exist")), false);
  });

  test("a hook that cannot start is a non-blocking error", async () => {
    const result = await runHooks(on("PreToolUse", cmd("true")), "PreToolUse", preToolUse(), {
      ...opts(),
      projectDir: box.path("no-such-dir"),
    });
    assert.equal(result.blocked, false);
    assert.equal(result.userMessages.length, 1);
    assert.match(result.userMessages[0], /failed: cannot run bash/);
  });
});

describe("runHooks: async command hooks", () => {
  const background = () => {
    const reports: AsyncHookReport[] = [];
    const lifetime = new AbortController();
    return { reports, lifetime, option: { signal: lifetime.signal, done: (report: AsyncHookReport) => reports.push(report) } };
  };

  test("they run in the background, decide nothing, and report their context and failures once done", async () => {
    const { reports, option } = background();
    // The slow hook ends only once the test lets it: runHooks must return before that. Should it
    // wait, the gate opens after 20 s so that the test fails rather than hangs.
    const gate = box.path("async-context.go");
    const slowContext = box.script(
      "async-context.sh",
      `cat > /dev/null; until [ -e "${gate}" ]; do sleep 0.02; done; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"3 tests failed"}}'`,
    );
    const config: HooksConfig = {
      PostToolUse: [{ hooks: [{ type: "command", command: slowContext, async: true }, { type: "command", command: 'echo "lint crashed" >&2; exit 2', async: true }, cmd("true")] }],
    };
    const fallback = setTimeout(() => writeFileSync(gate, ""), 20_000);
    const result = await runHooks(config, "PostToolUse", { ...base, hook_event_name: "PostToolUse", tool_name: "Edit", tool_input: {}, tool_response: {}, tool_use_id: "t" }, { ...opts(), background: option });
    assert.equal(existsSync(gate), false, "runHooks waited for the slow hook");
    assert.equal(result.blocked, false, "an async hook's exit 2 blocks nothing");
    assert.equal(result.results.length, 1, "only the foreground hook's result");
    await waitFor(() => reports.length === 1);
    writeFileSync(gate, "");
    clearTimeout(fallback);
    await waitFor(() => reports.length === 2);
    assert.ok(reports.every((r) => r.event === "PostToolUse"));
    const [failed, context] = reports;
    assert.deepEqual(failed!.userMessages.length, 1);
    assert.match(failed!.userMessages[0]!, /`echo "lint crashed" >&2; exit 2` \(async\) said no, after the fact: lint crashed/);
    assert.deepEqual(context, { event: "PostToolUse", context: "3 tests failed", userMessages: [] });
  });

  test("the run's cancellation leaves them running; the background's signal kills them", async () => {
    const { reports, lifetime, option } = background();
    const marker = box.path("async-survived");
    const hook = box.script("async-slow.sh", `cat > /dev/null; echo $$ > "${marker}.pid"; sleep 0.3; touch "${marker}"; sleep 30`);
    const run = new AbortController();
    await runHooks(on("Stop", { type: "command", command: hook, async: true }), "Stop", { ...base, hook_event_name: "Stop", stop_hook_active: false }, { ...opts(run.signal), background: option });
    run.abort();
    await waitFor(() => existsSync(marker));
    const pid = Number(box.read("async-survived.pid"));
    assert.ok(isRunning(pid));
    lifetime.abort();
    await waitFor(() => !isRunning(pid));
    assert.deepEqual(reports, [], "killed at the end of the session, it says nothing");
  });
});
