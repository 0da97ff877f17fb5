// `harness run "/mcp"`, "/memory", "/agents", "/hooks" and "/status": what the run loaded and from
// where, answered without a model call; a command of the user's own of the name still wins.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpTestServerCommand, startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** Runs `harness run … prompt` in a project of its own with a home of its own; answers what it
 * printed and how many model requests it made. */
async function report(t: { after(fn: () => unknown): void }, prompt: string, setUp: (dirs: { cwd: string; home: string }) => string[] = () => []) {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "from the model" }] }));
  const cwd = realpathSync(tempDir(t));
  const home = realpathSync(tempDir(t));
  const args = setUp({ cwd, home });
  const { code, stdout, stderr } = await harness(["run", "--cwd", cwd, "--model", "claude-sonnet-4-6", ...args, prompt], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;
  assert.equal(code, 0, stderr);
  return { stdout, requests: fake.requests.length, cwd, home };
}

const write = (file: string, text: string) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
};

test('harness run "/mcp" lists each server: connected with its tools, failed with why, disabled, awaiting approval, with where it is configured', async (t) => {
  const { stdout, requests, cwd } = await report(t, "/mcp", ({ cwd, home }) => {
    write(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { waiting: mcpTestServerCommand(), off: mcpTestServerCommand() } }));
    write(join(home, ".claude", "settings.json"), JSON.stringify({ disabledMcpjsonServers: ["off"] }));
    write(join(cwd, "flag.json"), JSON.stringify({ mcpServers: { good: mcpTestServerCommand(), broken: { command: join(cwd, "no-such-server") } } }));
    // --mcp-config takes several files: the prompt must not follow it.
    return ["--mcp-config", join(cwd, "flag.json"), "--permission-mode", "default"];
  });
  assert.equal(requests, 0);
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines[0], "MCP servers: 1 of 4 connected");
  assert.deepEqual(
    lines.slice(2).map((line) => line.split(":")[0]),
    ["  broken", "  good", "  off", "  waiting"],
  );
  assert.match(stdout, /^ {2}broken: failed: .+ · flag \(.*flag\.json\)$/m);
  assert.match(stdout, /^ {2}good: connected, \d+ tools · flag \(.*flag\.json\)$/m);
  assert.match(stdout, new RegExp(`^  off: disabled: listed in disabledMcpjsonServers · project \\(${cwd}/\\.mcp\\.json\\)$`, "m"));
  assert.match(stdout, /^ {2}waiting: pending approval: a .mcp.json server starts once .*· project \(/m);
});

test('harness run "/memory" lists the memory files in load order with their sizes, and those claudeMdExcludes left out', async (t) => {
  const { stdout, requests, cwd, home } = await report(t, "/memory", ({ cwd, home }) => {
    write(join(home, ".claude", "CLAUDE.md"), "Be brief.\n");
    write(join(cwd, "CLAUDE.md"), "See @notes.md\n");
    write(join(cwd, "notes.md"), "x".repeat(2048));
    write(join(cwd, "CLAUDE.local.md"), "mine\n");
    write(join(cwd, ".claude", "settings.json"), JSON.stringify({ claudeMdExcludes: ["**/CLAUDE.local.md"] }));
    return [];
  });
  assert.equal(requests, 0);
  assert.match(
    stdout,
    new RegExp(
      [
        "^Memory files, in the order the model gets them:",
        `  ${home}/\\.claude/CLAUDE\\.md \\(user\\): 10 B`,
        `  ${cwd}/CLAUDE\\.md \\(project\\): 14 B`,
        `  ${cwd}/notes\\.md \\(project, imported by ${cwd}/CLAUDE\\.md\\): 2\\.0 KB`,
        "",
        "Left out or worth a look:",
        `  ${cwd}/CLAUDE\\.local\\.md: left out by the settings' claudeMdExcludes`,
      ].join("\n"),
    ),
  );
  assert.match(stdout, /To edit memory, edit these files/);
});

test('harness run "/agents" lists built-in, file and --agents sub-agents by name, with origin, tools and model', async (t) => {
  const { stdout, requests, cwd } = await report(t, "/agents", ({ cwd }) => {
    write(join(cwd, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: haiku\n---\nReview.\n");
    return ["--agents", JSON.stringify({ tester: { description: "Tests", prompt: "Test." } })];
  });
  assert.equal(requests, 0);
  const names = [...stdout.matchAll(/^ {2}(\S+) · /gm)].map((match) => match[1]);
  assert.deepEqual(names, [...names].sort());
  assert.ok(names.includes("general-purpose") && names.includes("reviewer") && names.includes("tester"), names.join(", "));
  assert.match(stdout, /^ {2}general-purpose · built-in$/m);
  assert.match(stdout, new RegExp(`^  reviewer · project \\(${cwd}/\\.claude/agents/reviewer\\.md\\)\\n    tools: Read, Grep · model: haiku$`, "m"));
  assert.match(stdout, /^ {2}tester · --agents\n {4}tools: all · model: inherit$/m);
});

test('harness run "/hooks" lists the hooks by event with matcher, if, type and file; and says when only managed hooks run', async (t) => {
  const settings = (extra: object) =>
    JSON.stringify({
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: "echo stop" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo pre", if: "Bash(git *)" }] }],
      },
      ...extra,
    });
  const { stdout, requests, cwd } = await report(t, "/hooks", ({ cwd }) => {
    write(join(cwd, ".claude", "settings.json"), settings({}));
    return [];
  });
  assert.equal(requests, 0);
  const file = `${cwd}/.claude/settings.json`;
  assert.equal(
    stdout.split("\n\n")[0],
    ["Hooks, by event:", "  PreToolUse:", `    Bash if Bash(git *) · command: echo pre · ${file}`, "  Stop:", `    (all) · command: echo stop · ${file}`].join("\n"),
  );

  // A user's or project's disableAllHooks leaves only the managed settings' hooks running.
  const managed = await report(t, "/hooks", ({ cwd }) => {
    write(join(cwd, ".claude", "settings.json"), settings({ disableAllHooks: true }));
    return [];
  });
  assert.match(managed.stdout, /^Only the managed settings' hooks/);
  assert.match(managed.stdout, /No hooks are configured for this run\./);
});

test('harness run "/hooks" names an http hook by its URL as messages do, without the credentials, path or query that may be its secret', async (t) => {
  const url = "https://someone:hunter2@hooks.example.com/services/T0/s3cret?token=abc";
  const { stdout, requests } = await report(t, "/hooks", ({ cwd }) => {
    write(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "http", url }] }] } }));
    return [];
  });
  assert.equal(requests, 0);
  assert.match(stdout, /\(all\) · http: https:\/\/hooks\.example\.com\/services\/…\?… · /);
  assert.doesNotMatch(stdout, /hunter2|someone|s3cret|token=abc/);
});

test('harness run "/status" shows the model, permission mode, places and settings files in effect', async (t) => {
  const { stdout, requests, cwd, home } = await report(t, "/status", ({ cwd, home }) => {
    write(join(cwd, ".claude", "settings.json"), "{}");
    write(join(home, ".claude", "settings.json"), "{}");
    return ["--permission-mode", "plan"];
  });
  assert.equal(requests, 0);
  assert.match(stdout, /^Model: +claude-sonnet-4-6$/m);
  assert.match(stdout, /^Permission mode: +plan$/m);
  assert.match(stdout, new RegExp(`^Working directory: +${cwd}$`, "m"));
  assert.match(stdout, new RegExp(`^Project root: +${cwd}$`, "m"));
  assert.match(stdout, /^Session id: +\S+$/m);
  assert.match(stdout, new RegExp(`Settings files in effect, lowest precedence first:\\n  user: ${home}/\\.claude/settings\\.json\\n  project: ${cwd}/\\.claude/settings\\.json`));
});

test("a command of the user's own named /status replaces the built-in report, and goes to the model", async (t) => {
  const { stdout, requests } = await report(t, "/status", ({ cwd }) => {
    write(join(cwd, ".claude", "commands", "status.md"), "---\ndescription: Our status\n---\nSummarize the project's status.\n");
    return [];
  });
  assert.equal(requests, 1);
  assert.match(stdout, /from the model/);
});

test('harness run "/help" lists the inspection commands among the built-ins', async (t) => {
  const { stdout, requests } = await report(t, "/help");
  assert.equal(requests, 0);
  for (const name of ["mcp", "memory", "agents", "hooks", "status"]) assert.match(stdout, new RegExp(`^  /${name} — Show `, "m"));
});
