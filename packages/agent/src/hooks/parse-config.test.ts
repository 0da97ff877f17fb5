import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeHooksConfigs, parseHooksConfig } from "./parse-config.ts";

const FILE = "/repo/.claude/settings.json";

describe("parseHooksConfig", () => {
  test("a valid configuration loads unchanged, without diagnostics", () => {
    const raw = {
      PreToolUse: [
        { matcher: "Edit|Write", hooks: [{ type: "command", command: "lint.sh", timeout: 30 }] },
        { matcher: "mcp__.*", hooks: [{ type: "command", command: "audit.sh" }] },
      ],
      Stop: [{ hooks: [{ type: "command", command: "check.sh" }] }],
    };
    const { config, diagnostics } = parseHooksConfig(raw, FILE);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config, raw);
  });

  test("no hooks at all is an empty configuration", () => {
    assert.deepEqual(parseHooksConfig(undefined, FILE), { config: {}, diagnostics: [] });
  });

  test("a value that is not an object is reported", () => {
    const { config, diagnostics } = parseHooksConfig(["x"], FILE);
    assert.deepEqual(config, {});
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0].file, FILE);
    assert.equal(diagnostics[0].key, "hooks");
    assert.match(diagnostics[0].message, /must be an object/);
  });

  test("an unknown event is reported by name and the others still load", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "ok.sh" }] }],
        BeforeTool: [{ hooks: [{ type: "command", command: "x" }] }],
      },
      FILE,
    );
    assert.deepEqual(Object.keys(config), ["PreToolUse"]);
    assert.deepEqual(diagnostics, [
      { file: FILE, key: "hooks.BeforeTool", message: diagnostics[0].message },
    ]);
    assert.match(diagnostics[0].message, /unknown hook event "BeforeTool".*PreToolUse/);
  });

  test("bad entries are dropped with a diagnostic naming their key", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        PostToolUse: [
          { matcher: ["Write", "Edit"], hooks: [{ type: "command", command: "a" }] },
          { matcher: "Bash(", hooks: [{ type: "command", command: "b" }] },
          { matcher: "Read", hooks: "c" },
          "d",
          {
            matcher: "Write",
            hooks: [
              { type: "prompt", prompt: "Is this ok?" },
              { type: "command" },
              { type: "command", command: "   " },
              { type: "command", command: "echo a\0b" },
              { type: "command", command: "kept.sh" },
            ],
          },
        ],
        Stop: {},
      },
      FILE,
    );
    assert.deepEqual(config, { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "kept.sh" }] }] });
    const byKey = new Map(diagnostics.map((d) => [d.key, d.message]));
    assert.match(byKey.get("hooks.PostToolUse[0].matcher")!, /must be a string/);
    assert.match(byKey.get("hooks.PostToolUse[1].matcher")!, /not a valid regular expression/);
    assert.match(byKey.get("hooks.PostToolUse[2].hooks")!, /must be a list/);
    assert.match(byKey.get("hooks.PostToolUse[3]")!, /must be an object/);
    assert.match(byKey.get("hooks.PostToolUse[4].hooks[0].type")!, /"prompt" are not supported/);
    assert.match(byKey.get("hooks.PostToolUse[4].hooks[1].command")!, /non-empty string/);
    assert.match(byKey.get("hooks.PostToolUse[4].hooks[2].command")!, /non-empty string/);
    assert.match(byKey.get("hooks.PostToolUse[4].hooks[3].command")!, /must not hold a NUL character/);
    assert.match(byKey.get("hooks.Stop")!, /must be a list/);
    assert.equal(diagnostics.length, 9);
    assert.ok(diagnostics.every((d) => d.file === FILE));
  });

  test("a bad timeout or an unknown key is reported but the hook still runs", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "guard.sh", timeout: "30" },
              { type: "command", command: "slow.sh", timeout: -1, async: true },
            ],
          },
        ],
      },
      FILE,
    );
    assert.deepEqual(config, {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }, { type: "command", command: "slow.sh" }] }],
    });
    assert.deepEqual(
      diagnostics.map((d) => d.key),
      ["hooks.PreToolUse[0].hooks[0].timeout", "hooks.PreToolUse[0].hooks[1].async", "hooks.PreToolUse[0].hooks[1].timeout"],
    );
    assert.match(diagnostics[0].message, /must be a positive number of seconds, got "30"/);
    assert.match(diagnostics[0].message, /default applies/);
    assert.match(diagnostics[1].message, /unknown key "async" is ignored/);
  });
});

describe("mergeHooksConfigs", () => {
  test("every scope's hooks are kept, in the order of the scopes", () => {
    const user = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command" as const, command: "user.sh" }] }] };
    const project = {
      PreToolUse: [{ hooks: [{ type: "command" as const, command: "project.sh" }] }],
      Stop: [{ hooks: [{ type: "command" as const, command: "stop.sh" }] }],
    };
    assert.deepEqual(mergeHooksConfigs([user, project]), {
      PreToolUse: [...user.PreToolUse, ...project.PreToolUse],
      Stop: project.Stop,
    });
  });
});
