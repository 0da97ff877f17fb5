import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runHooks } from "./run-hooks.ts";
import { createHookSandbox } from "./testing.ts";
import type { HookSandbox } from "./testing.ts";
import type { HookEventName, HookInputFor, HooksConfig } from "./types.ts";

let box: HookSandbox;
before(() => {
  box = createHookSandbox();
});
after(() => box.remove());

let scripts = 0;
/** A hook that prints `output` (a string as is, anything else as JSON) and exits with `code`. */
function printing(output: unknown, code = 0): string {
  const text = typeof output === "string" ? output : JSON.stringify(output);
  return box.script(`out-${++scripts}.sh`, `cat <<'HOOK_OUTPUT'\n${text}\nHOOK_OUTPUT\nexit ${code}`);
}

const base = { session_id: "s", transcript_path: "/t.jsonl", cwd: "/w" };
const inputs: { [E in HookEventName]: HookInputFor<E> } = {
  PreToolUse: { ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf build" }, tool_use_id: "t1" },
  PermissionRequest: { ...base, hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "npm publish" } },
  PostToolUse: { ...base, hook_event_name: "PostToolUse", tool_name: "Edit", tool_input: {}, tool_response: { ok: true }, tool_use_id: "t2" },
  PostToolUseFailure: { ...base, hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: "make" }, tool_use_id: "t3", error: "Exit code 2", is_interrupt: false },
  UserPromptSubmit: { ...base, hook_event_name: "UserPromptSubmit", prompt: "deploy it" },
  Stop: { ...base, hook_event_name: "Stop", stop_hook_active: false },
  StopFailure: { ...base, hook_event_name: "StopFailure", error_type: "rate_limit", error: "429", error_message: "Anthropic API error 429" },
  SubagentStart: { ...base, hook_event_name: "SubagentStart", agent_id: "agent_1", agent_type: "Explore" },
  SubagentStop: { ...base, hook_event_name: "SubagentStop", stop_hook_active: false, agent_id: "agent_1", agent_type: "Explore" },
  SessionStart: { ...base, hook_event_name: "SessionStart", source: "startup" },
  SessionEnd: { ...base, hook_event_name: "SessionEnd", reason: "other" },
  PreCompact: { ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" },
  PostCompact: { ...base, hook_event_name: "PostCompact", trigger: "auto", compact_summary: "The user asked for X." },
  Notification: { ...base, hook_event_name: "Notification", message: "Waiting for input" },
  PermissionDenied: { ...base, hook_event_name: "PermissionDenied", tool_name: "Bash", tool_input: { command: "rm -rf build" }, tool_use_id: "t4", reason: "no one to approve it" },
  InstructionsLoaded: { ...base, hook_event_name: "InstructionsLoaded", file_path: "/w/CLAUDE.md", memory_type: "Project", load_reason: "session_start" },
};

function run<E extends HookEventName>(event: E, ...outputs: string[]) {
  const config: HooksConfig = { [event]: [{ hooks: outputs.map((command) => ({ type: "command", command })) }] };
  return runHooks(config, event, inputs[event], { cwd: "/w", projectDir: box.dir, signal: new AbortController().signal });
}

const preToolUse = (fields: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } });

describe("JSON output: PreToolUse", () => {
  test("allow with updatedInput approves the call with the new input", async () => {
    const result = await run(
      "PreToolUse",
      printing(preToolUse({ permissionDecision: "allow", permissionDecisionReason: "safe", updatedInput: { command: "rm -rf ./build" } })),
    );
    assert.equal(result.permissionDecision, "allow");
    assert.equal(result.permissionDecisionReason, "safe");
    assert.deepEqual(result.updatedInput, { command: "rm -rf ./build" });
    assert.equal(result.blocked, false);
  });

  test("deny blocks the call with the reason for the model", async () => {
    const result = await run("PreToolUse", printing(preToolUse({ permissionDecision: "deny", permissionDecisionReason: "Use trash instead" })));
    assert.equal(result.permissionDecision, "deny");
    assert.equal(result.permissionDecisionReason, "Use trash instead");
    assert.equal(result.blocked, true);
    assert.equal(result.blockReason, "Use trash instead");
  });

  test("ask sends the call to the user", async () => {
    const result = await run("PreToolUse", printing(preToolUse({ permissionDecision: "ask", permissionDecisionReason: "Deletes files" })));
    assert.equal(result.permissionDecision, "ask");
    assert.equal(result.permissionDecisionReason, "Deletes files");
    assert.equal(result.blocked, false);
  });

  test("across hooks deny beats ask beats allow, and a deny drops updatedInput", async () => {
    const allow = printing(preToolUse({ permissionDecision: "allow", updatedInput: { command: "x" } }));
    const ask = printing(preToolUse({ permissionDecision: "ask", permissionDecisionReason: "check" }));
    const deny = printing(preToolUse({ permissionDecision: "deny", permissionDecisionReason: "no" }));
    const askWins = await run("PreToolUse", allow, ask);
    assert.equal(askWins.permissionDecision, "ask");
    assert.equal(askWins.permissionDecisionReason, "check");
    assert.deepEqual(askWins.updatedInput, { command: "x" });
    const denyWins = await run("PreToolUse", deny, allow, ask);
    assert.equal(denyWins.permissionDecision, "deny");
    assert.equal(denyWins.permissionDecisionReason, "no");
    assert.equal(denyWins.updatedInput, undefined);
    assert.equal(denyWins.blocked, true);
  });

  test("the older decision approve / block still works", async () => {
    const approve = await run("PreToolUse", printing({ decision: "approve", reason: "fine" }));
    assert.equal(approve.permissionDecision, "allow");
    assert.equal(approve.permissionDecisionReason, "fine");
    const block = await run("PreToolUse", printing({ decision: "block", reason: "not here" }));
    assert.equal(block.permissionDecision, "deny");
    assert.equal(block.blockReason, "not here");
  });

  test("non-JSON stdout on exit 0 decides nothing and is kept for the transcript", async () => {
    const result = await run("PreToolUse", printing("checked 3 rules, all fine"));
    assert.equal(result.permissionDecision, undefined);
    assert.deepEqual(result.additionalContext, []);
    assert.deepEqual(result.userMessages, []);
    assert.equal(result.results[0].stdout.trim(), "checked 3 rules, all fine");
  });

  test("JSON of the wrong shape is reported to the user and ignored", async () => {
    const result = await run("PreToolUse", printing(preToolUse({ permissionDecision: "maybe" })));
    assert.equal(result.permissionDecision, undefined);
    assert.equal(result.userMessages.length, 1);
    assert.match(result.userMessages[0], /invalid JSON output.*permissionDecision/);
  });
});

describe("JSON output: PermissionRequest", () => {
  const decide = (decision: unknown) => ({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });

  test("allow approves the call, with the input the hook gives", async () => {
    const result = await run("PermissionRequest", printing(decide({ behavior: "allow", updatedInput: { command: "npm publish --dry-run" } })));
    assert.equal(result.permissionDecision, "allow");
    assert.deepEqual(result.updatedInput, { command: "npm publish --dry-run" });
    assert.equal(result.continue, true);
  });

  test("allow may carry updatedPermissions, as an approval does; those of every allowing hook apply, none when the call is denied, and unreadable ones leave the call to the user", async () => {
    const rule = (content: string) => ({ type: "addRules", rules: [{ toolName: "Bash", ruleContent: content }], behavior: "allow", destination: "session" });
    const allowed = await run("PermissionRequest", printing(decide({ behavior: "allow", updatedPermissions: [rule("npm publish:*")] })), printing(decide({ behavior: "allow", updatedPermissions: [rule("npm pack:*")] })));
    assert.equal(allowed.permissionDecision, "allow");
    assert.deepEqual(allowed.updatedPermissions, [rule("npm publish:*"), rule("npm pack:*")]);
    const denied = await run("PermissionRequest", printing(decide({ behavior: "allow", updatedPermissions: [rule("npm publish:*")] })), printing(decide({ behavior: "deny" })));
    assert.equal(denied.permissionDecision, "deny");
    assert.equal(denied.updatedPermissions, undefined);
    const unreadable = await run("PermissionRequest", printing(decide({ behavior: "allow", updatedPermissions: [{ type: "addRules", behavior: "allow" }] })));
    assert.equal(unreadable.permissionDecision, undefined);
    assert.match(unreadable.userMessages.join("\n"), /PermissionRequest hook printed updatedPermissions that are not valid, and its decision is ignored: updatedPermissions\[0\]\.rules: /);
  });

  test("allow with updatedPermissions: null allows, with no updates, as an approval's null is none", async () => {
    const allowed = await run("PermissionRequest", printing(decide({ behavior: "allow", updatedPermissions: null })));
    assert.equal(allowed.permissionDecision, "allow");
    assert.equal(allowed.updatedPermissions, undefined);
    assert.deepEqual(allowed.userMessages, []);
  });

  test("deny refuses it with the hook's message; interrupt stops the run too", async () => {
    const denied = await run("PermissionRequest", printing(decide({ behavior: "deny", message: "Publishing is done by CI" })));
    assert.equal(denied.permissionDecision, "deny");
    assert.equal(denied.permissionDecisionReason, "Denied by a PermissionRequest hook: Publishing is done by CI");
    assert.equal(denied.continue, true);
    const stopped = await run("PermissionRequest", printing(decide({ behavior: "deny", interrupt: true })));
    assert.equal(stopped.permissionDecision, "deny");
    assert.equal(stopped.continue, false);
  });

  test("exit code 2 denies with its stderr; no decision, or one of the wrong shape, leaves the call to the user", async () => {
    const exited = await run("PermissionRequest", box.script("deny.sh", "echo 'not on Fridays' >&2\nexit 2"));
    assert.equal(exited.permissionDecision, "deny");
    assert.equal(exited.permissionDecisionReason, "not on Fridays");
    const silent = await run("PermissionRequest", printing({}));
    assert.equal(silent.permissionDecision, undefined);
    const wrong = await run("PermissionRequest", printing(decide({ behavior: "maybe" })));
    assert.equal(wrong.permissionDecision, undefined);
    assert.match(wrong.userMessages.join("\n"), /PermissionRequest hook printed a decision that is not/);
  });
});

describe("JSON output: other events", () => {
  test("PostToolUse: block feeds the reason to the model; additionalContext is added", async () => {
    const result = await run(
      "PostToolUse",
      printing({ decision: "block", reason: "Lint failed: 2 errors", hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "see eslint.log" } }),
    );
    assert.equal(result.blocked, true);
    assert.equal(result.blockReason, "Lint failed: 2 errors");
    assert.deepEqual(result.additionalContext, ["see eslint.log"]);
  });

  test("UserPromptSubmit: block drops the prompt; additionalContext and plain stdout become context", async () => {
    const blocked = await run("UserPromptSubmit", printing({ decision: "block", reason: "Prompt contains a secret" }));
    assert.equal(blocked.blocked, true);
    assert.equal(blocked.blockReason, "Prompt contains a secret");
    const context = await run(
      "UserPromptSubmit",
      printing({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "Branch: main" } }),
      printing("Current time: 12:00"),
      printing("{ not json"),
    );
    assert.equal(context.blocked, false);
    assert.deepEqual(context.additionalContext, ["Branch: main", "Current time: 12:00", "{ not json"]);
  });

  test("SessionStart: plain stdout and additionalContext become context", async () => {
    const result = await run(
      "SessionStart",
      printing("Open issues: 3"),
      printing({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "Last deploy failed" } }),
    );
    assert.deepEqual(result.additionalContext, ["Open issues: 3", "Last deploy failed"]);
  });

  test("Stop and SubagentStop: block keeps the agent going with the reason", async () => {
    for (const event of ["Stop", "SubagentStop"] as const) {
      const result = await run(event, printing({ decision: "block", reason: "Tests still fail; run npm test" }));
      assert.equal(result.blocked, true);
      assert.equal(result.blockReason, "Tests still fail; run npm test");
    }
  });

  test("continue false stops the run with stopReason, whatever the event", async () => {
    for (const event of ["PreToolUse", "PostToolUse", "Notification"] as const) {
      const result = await run(event, printing({ continue: false, stopReason: "Budget exhausted" }), printing({}));
      assert.equal(result.continue, false);
      assert.equal(result.stopReason, "Budget exhausted");
    }
  });

  test("systemMessage reaches the user and suppressOutput marks the hook's result", async () => {
    const result = await run("PreCompact", printing({ systemMessage: "Transcript backed up", suppressOutput: true }), printing({}));
    assert.deepEqual(result.userMessages, ["Transcript backed up"]);
    assert.deepEqual(result.results.map((r) => r.suppressOutput), [true, false]);
  });

  test("decision block means nothing on events that cannot block", async () => {
    const result = await run("SessionEnd", printing({ decision: "block", reason: "no" }));
    assert.equal(result.blocked, false);
  });

  test("StopFailure hooks are only told: their output and exit code change nothing and tell nobody", async () => {
    const result = await run("StopFailure", printing({ decision: "block", reason: "no", continue: false, systemMessage: "hi" }), printing("failed", 2), printing("", 1));
    assert.equal(result.blocked, false);
    assert.equal(result.continue, true);
    assert.deepEqual(result.userMessages, []);
    assert.deepEqual(result.additionalContext, []);
    assert.equal(result.results.length, 3);
  });

  test("InstructionsLoaded hooks are only told: their output and exit code change nothing and tell nobody", async () => {
    const result = await run("InstructionsLoaded", printing({ continue: false, systemMessage: "hi" }), printing("failed", 2), printing("", 1));
    assert.equal(result.continue, true);
    assert.deepEqual(result.userMessages, []);
    assert.equal(result.results.length, 3);
  });

  test("PermissionDenied: retry true lets the model retry; exit code 2 neither blocks nor warns; other JSON fields hold", async () => {
    const retry = await run("PermissionDenied", printing({ hookSpecificOutput: { hookEventName: "PermissionDenied", retry: true } }), printing({ retry: false }));
    assert.equal(retry.retry, true);
    const none = await run("PermissionDenied", printing({ hookSpecificOutput: { hookEventName: "PermissionDenied", retry: false } }), printing("nope", 2));
    assert.equal(none.retry, undefined);
    assert.equal(none.blocked, false);
    assert.deepEqual(none.userMessages, []);
    const said = await run("PermissionDenied", printing({ systemMessage: "logged", continue: false }));
    assert.deepEqual(said.userMessages, ["logged"]);
    assert.equal(said.continue, false);
  });

  test("a retry that is not a boolean is reported, not taken", async () => {
    const result = await run("PermissionDenied", printing({ hookSpecificOutput: { hookEventName: "PermissionDenied", retry: "yes" } }));
    assert.equal(result.retry, undefined);
    assert.match(result.userMessages[0], /invalid JSON output.*retry/);
  });

  test("plain stdout is not context for tool events", async () => {
    const result = await run("PostToolUse", printing("formatted 1 file"));
    assert.deepEqual(result.additionalContext, []);
  });

  test("hookSpecificOutput for another event is ignored and reported", async () => {
    const result = await run("PreToolUse", printing({ hookSpecificOutput: { hookEventName: "PostToolUse", permissionDecision: "deny" } }));
    assert.equal(result.permissionDecision, undefined);
    assert.match(result.userMessages[0], /hookSpecificOutput for "PostToolUse"/);
  });
});

describe("JSON output: PostToolUse replacing the tool's output", () => {
  const postToolUse = (fields: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: "PostToolUse", ...fields } });

  test("updatedToolOutput wins over updatedMCPToolOutput, and the last hook that gives one wins", async () => {
    const result = await run(
      "PostToolUse",
      printing(postToolUse({ updatedToolOutput: "first" })),
      printing(postToolUse({ updatedToolOutput: { stdout: "second" }, updatedMCPToolOutput: "older field" })),
      printing(postToolUse({ additionalContext: "no replacement here" })),
    );
    assert.deepEqual(result.updatedOutput, { field: "updatedToolOutput", value: { stdout: "second" } });
  });

  test("updatedMCPToolOutput alone is kept under its own name; other events ignore both", async () => {
    const mcp = await run("PostToolUse", printing(postToolUse({ updatedMCPToolOutput: [{ type: "text", text: "x" }] })));
    assert.deepEqual(mcp.updatedOutput, { field: "updatedMCPToolOutput", value: [{ type: "text", text: "x" }] });
    const failure = await run("PostToolUseFailure", printing({ hookSpecificOutput: { hookEventName: "PostToolUseFailure", updatedToolOutput: "x" } }));
    assert.equal(failure.updatedOutput, undefined);
  });
});
