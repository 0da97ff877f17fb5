import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileMatcher, matchTarget } from "./matcher.ts";

const base = { session_id: "s", transcript_path: "/t.jsonl", cwd: "/w" };

describe("compileMatcher", () => {
  test("a plain name matches only that exact tool, case-sensitively", () => {
    const m = compileMatcher("Bash");
    assert.equal(m("Bash"), true);
    assert.equal(m("BashOutput"), false);
    assert.equal(m("bash"), false);
  });

  test("| separates alternatives", () => {
    const m = compileMatcher("Edit|Write");
    assert.deepEqual(["Edit", "Write", "MultiEdit", "Read"].map(m), [true, true, false, false]);
  });

  test("other patterns are regular expressions", () => {
    const mcp = compileMatcher("mcp__.*");
    assert.equal(mcp("mcp__github__create_issue"), true);
    assert.equal(mcp("Bash"), false);
    const notebook = compileMatcher("^Notebook");
    assert.equal(notebook("NotebookEdit"), true);
    assert.equal(notebook("MyNotebook"), false);
  });

  test("missing, empty and * match everything", () => {
    for (const pattern of [undefined, "", "*"]) assert.equal(compileMatcher(pattern)("anything"), true);
  });

  test("an invalid regular expression throws", () => {
    assert.throws(() => compileMatcher("Bash("));
  });
});

describe("matchTarget", () => {
  test("tool events select on the tool name, SessionStart on source, PreCompact on trigger", () => {
    assert.equal(matchTarget({ ...base, hook_event_name: "PreToolUse", tool_name: "Read", tool_input: {}, tool_use_id: "t" }), "Read");
    assert.equal(
      matchTarget({ ...base, hook_event_name: "PostToolUse", tool_name: "Edit", tool_input: {}, tool_response: "ok", tool_use_id: "t" }),
      "Edit",
    );
    assert.equal(matchTarget({ ...base, hook_event_name: "SessionStart", source: "resume" }), "resume");
    assert.equal(matchTarget({ ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" }), "auto");
  });

  test("events without matchers select every hook", () => {
    assert.equal(matchTarget({ ...base, hook_event_name: "UserPromptSubmit", prompt: "hi" }), undefined);
    assert.equal(matchTarget({ ...base, hook_event_name: "Stop", stop_hook_active: false }), undefined);
    assert.equal(matchTarget({ ...base, hook_event_name: "Notification", message: "m" }), undefined);
  });
});
