import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeHooksConfigs, parseHooksConfig } from "./parse-config.ts";
import { ifRule } from "./testing.ts";

const FILE = "/repo/.claude/settings.json";

describe("parseHooksConfig", () => {
  test("a valid configuration loads unchanged, without diagnostics", () => {
    const raw = {
      PreToolUse: [
        { matcher: "Edit|Write", hooks: [{ type: "command", command: "lint.sh", timeout: 30 }] },
        { matcher: "mcp__.*", hooks: [{ type: "command", command: "audit.sh", async: true }] },
      ],
      Stop: [{ hooks: [{ type: "command", command: "check.sh" }] }],
    };
    const { config, diagnostics } = parseHooksConfig(raw, FILE);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config, withParsedIfs(raw));
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
              { type: "webhook", url: "http://localhost/" },
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
    assert.match(byKey.get("hooks.PostToolUse[4].hooks[0].type")!, /"webhook" are not supported; the types are "command", "http", "prompt" and "agent"/);
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
              { type: "command", command: "slow.sh", timeout: -1, statusMessage: "Checking…", async: "yes" },
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
      ["hooks.PreToolUse[0].hooks[0].timeout", "hooks.PreToolUse[0].hooks[1].statusMessage", "hooks.PreToolUse[0].hooks[1].timeout", "hooks.PreToolUse[0].hooks[1].async"],
    );
    assert.match(diagnostics[0].message, /must be a positive number of seconds, got "30"/);
    assert.match(diagnostics[0].message, /default applies/);
    assert.match(diagnostics[1].message, /unknown key "statusMessage" is ignored/);
    assert.match(diagnostics[3].message, /must be true or false, got "yes"; the hook runs in the foreground/);
  });
});

describe("parseHooksConfig: http, prompt and agent hooks", () => {
  test("valid ones load as given", () => {
    const raw = {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            { type: "http", url: "https://hooks.example.com/pre", headers: { Authorization: "Bearer $TOKEN" }, allowedEnvVars: ["TOKEN"], timeout: 5 },
            { type: "prompt", prompt: "Is this command safe? $ARGUMENTS", model: "haiku", timeout: 10 },
          ],
        },
      ],
      Stop: [{ hooks: [{ type: "agent", prompt: "Do the tests pass?" }] }],
    };
    const { config, diagnostics } = parseHooksConfig(raw, FILE);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config, withParsedIfs(raw));
  });

  test("a bad URL, header or variable list drops the hook, naming the key", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        PostToolUse: [
          {
            hooks: [
              { type: "http" },
              { type: "http", url: "not a url" },
              { type: "http", url: "file:///etc/passwd" },
              { type: "http", url: "http://h/", headers: { "Bad Name": "x" } },
              { type: "http", url: "http://h/", headers: { "X-A": "line\nbreak" } },
              { type: "http", url: "http://h/", headers: { "X-A": 5 } },
              { type: "http", url: "http://h/", allowedEnvVars: ["OK", "not-ok"] },
              { type: "http", url: "http://h/kept", timeout: 0, statusMessage: "x", once: "no" },
            ],
          },
        ],
      },
      FILE,
    );
    assert.deepEqual(config, { PostToolUse: [{ hooks: [{ type: "http", url: "http://h/kept" }] }] });
    const byKey = new Map(diagnostics.map((d) => [d.key, d.message]));
    const key = (i: number, field: string) => byKey.get(`hooks.PostToolUse[0].hooks[${i}].${field}`) ?? "";
    assert.match(key(0, "url"), /must be an http or https URL/);
    assert.match(key(1, "url"), /is not a URL/);
    assert.match(key(2, "url"), /must be an http or https URL, got "file:/);
    assert.match(key(3, "headers"), /"Bad Name" is not a valid header name; the hook is not run/);
    assert.match(key(4, "headers"), /must not hold a line break/);
    assert.match(key(5, "headers"), /the value of "X-A" must be a string, got number 5/);
    assert.match(key(6, "allowedEnvVars"), /must be a list of environment variable names/);
    assert.match(key(7, "timeout"), /default applies/);
    assert.match(key(7, "statusMessage"), /unknown key "statusMessage" is ignored/);
    assert.match(key(7, "once"), /must be true or false, got "no"; the hook runs every time/);
    assert.equal(diagnostics.length, 10);
  });

  test("prompt and agent hooks need a prompt, and run only where a yes or no decides something", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        SessionStart: [{ hooks: [{ type: "prompt", prompt: "Say hello" }] }],
        Notification: [{ hooks: [{ type: "agent", prompt: "Check" }] }],
        UserPromptSubmit: [{ hooks: [{ type: "prompt" }, { type: "agent", prompt: "  " }, { type: "prompt", prompt: "Fine?", model: 7 }] }],
      },
      FILE,
    );
    assert.deepEqual(config, { UserPromptSubmit: [{ hooks: [{ type: "prompt", prompt: "Fine?" }] }] });
    const byKey = new Map(diagnostics.map((d) => [d.key, d.message]));
    assert.match(byKey.get("hooks.SessionStart[0].hooks[0].type")!, /prompt hooks .* run only on PreToolUse, .*Stop, SubagentStop; on SessionStart use a command or http hook/);
    assert.match(byKey.get("hooks.Notification[0].hooks[0].type")!, /agent hooks .*on Notification use a command or http hook/);
    assert.match(byKey.get("hooks.UserPromptSubmit[0].hooks[0].prompt")!, /must be a non-empty string, got nothing/);
    assert.match(byKey.get("hooks.UserPromptSubmit[0].hooks[1].prompt")!, /must be a non-empty string/);
    assert.match(byKey.get("hooks.UserPromptSubmit[0].hooks[2].model")!, /must be a model name .*got number 7; the default model is used/);
  });
});

/** `raw` with each hook's `if` as parseHooksConfig gives it: parsed. */
function withParsedIfs(raw: Record<string, { hooks: Record<string, unknown>[] }[]>): unknown {
  const parsed = (hook: Record<string, unknown>) => (typeof hook.if === "string" ? { ...hook, if: ifRule(hook.if) } : hook);
  return Object.fromEntries(Object.entries(raw).map(([event, groups]) => [event, groups.map((group) => ({ ...group, hooks: group.hooks.map(parsed) }))]));
}

describe("parseHooksConfig: a hook's if", () => {
  test("one permission rule loads on every kind of hook of a tool event", () => {
    const raw = {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            { type: "command", command: "guard.sh", if: "Bash(git commit *)" },
            { type: "http", url: "http://localhost:9/pre", if: "Bash(npm publish:*)" },
            { type: "prompt", prompt: "Safe? $ARGUMENTS", if: "Bash(rm *)" },
          ],
        },
      ],
      PermissionRequest: [{ hooks: [{ type: "agent", prompt: "Fine?", if: "Edit(*.ts)" }] }],
      PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "fmt.sh", if: "Write(*.ts)" }] }],
      PostToolUseFailure: [{ hooks: [{ type: "command", command: "note.sh", if: "mcp__github" }] }],
    };
    const { config, diagnostics } = parseHooksConfig(raw, FILE);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config, withParsedIfs(raw));
  });

  test("an if that is no single rule drops its hook, naming the hook and the problem; the group's other hooks load", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "a.sh", if: "Bash(git commit *" },
              { type: "http", url: "http://h/", if: "" },
              { type: "prompt", prompt: "Safe?", if: ["Bash(git *)"] },
              { type: "command", command: "b.sh", if: "Bash(git *) && Edit(*.ts)" },
              { type: "command", command: "kept.sh", if: " Bash(git push *) " },
            ],
          },
        ],
      },
      FILE,
    );
    assert.deepEqual(config, { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "kept.sh", if: ifRule("Bash(git push *)") }] }] });
    const byKey = new Map(diagnostics.map((d) => [d.key, d]));
    const key = (i: number) => byKey.get(`hooks.PreToolUse[0].hooks[${i}].if`);
    assert.match(key(0)!.message, /"Bash\(git commit \*" is not a permission rule: .*no closing parenthesis; the hook is not run, rather than run for every call its matcher selects/);
    assert.match(key(1)!.message, /must be one permission rule such as "Bash\(git commit \*\)"/);
    assert.match(key(2)!.message, /must be one permission rule/);
    assert.match(key(3)!.message, /holds more than one rule/);
    assert.equal(diagnostics.length, 4);
    assert.ok(diagnostics.every((d) => d.kept === undefined));
  });

  test("an if on an event about no tool call drops its hook, saying it would never run", () => {
    const { config, diagnostics } = parseHooksConfig(
      {
        Stop: [{ hooks: [{ type: "command", command: "check.sh", if: "Bash(git *)" }, { type: "command", command: "always.sh" }] }],
        UserPromptSubmit: [{ hooks: [{ type: "prompt", prompt: "Fine?", if: "Bash" }] }],
      },
      FILE,
    );
    assert.deepEqual(config, { Stop: [{ hooks: [{ type: "command", command: "always.sh" }] }] });
    assert.deepEqual(diagnostics.map((d) => d.key), ["hooks.Stop[0].hooks[0].if", "hooks.UserPromptSubmit[0].hooks[0].if"]);
    assert.match(diagnostics[0].message, /only evaluated on events about a tool call \(PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure\); on Stop a hook with "if" never runs/);
  });

  test("an if on PermissionDenied is kept: the event is about one tool call", () => {
    const { config, diagnostics } = parseHooksConfig({ PermissionDenied: [{ matcher: "Bash", hooks: [{ type: "command", command: "log.sh", if: "Bash(rm *)" }] }] }, FILE);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config, { PermissionDenied: [{ matcher: "Bash", hooks: [{ type: "command", command: "log.sh", if: ifRule("Bash(rm *)") }] }] });
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
