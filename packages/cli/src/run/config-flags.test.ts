// `harness run --mcp-config, --strict-mcp-config, --settings, --setting-sources, --add-dir, --tools`:
// configuration given on the command line, in runs of the real command.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

const MODEL = ["--model", "claude-sonnet-4-6"];

function offeredTools(fake: { requests: { body: Record<string, unknown> }[] }, i = 0): string[] {
  return ((fake.requests[i]!.body.tools as { name: string }[] | undefined) ?? []).map((tool) => tool.name);
}

/** A home of its own (user settings), with a project directory beside it. */
function machine(t: { after(fn: () => unknown): void }) {
  const root = tempDir(t);
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(project, ".claude"), { recursive: true });
  return {
    root,
    home,
    project,
    userSettings: (value: unknown) => writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(value)),
    localSettings: (value: unknown) => writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify(value)),
  };
}

test("--mcp-config takes files and JSON strings, several to a flag; their servers start unasked, and --strict-mcp-config leaves only them", async (t) => {
  const m = machine(t);
  m.userSettings({ mcpServers: { mine: mcpTestServerCommand() } });
  writeFileSync(join(m.root, "tools.json"), JSON.stringify({ mcpServers: { fromfile: mcpTestServerCommand() } }));
  const inline = JSON.stringify({ mcpServers: { inline: mcpTestServerCommand() } });
  // Every tool offered at once, whatever the count: deferring some behind ToolSearch is not this test's.
  const env = (url: string) => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url, HOME: m.home, HARNESS_DEFER_TOOLS_AFTER: "1000" });

  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }, { text: "ok" }] }));
  const both = await harness(["run", ...MODEL, "--output-format", "stream-json", "--mcp-config", "../tools.json", inline, "--", "hi"], env(fake.url), { cwd: m.project }).result;
  assert.equal(both.code, 0, both.stderr);
  const init = JSON.parse(both.stdout.split("\n")[0]!) as { mcp_servers: { name: string; status: string }[] };
  assert.deepEqual(
    init.mcp_servers.map((s) => `${s.name}:${s.status}`).sort(),
    ["fromfile:connected", "inline:connected", "mine:connected"],
  );
  assert.ok(offeredTools(fake).includes("mcp__inline__echo") && offeredTools(fake).includes("mcp__fromfile__echo"), offeredTools(fake).join(", "));

  const strict = await harness(["run", ...MODEL, "--strict-mcp-config", "--mcp-config", inline, "--", "hi"], env(fake.url), { cwd: m.project }).result;
  assert.equal(strict.code, 0, strict.stderr);
  const servers = new Set(offeredTools(fake, 1).flatMap((name) => /^mcp__([^_]+)__/.exec(name)?.[1] ?? []));
  assert.deepEqual([...servers], ["inline"]);
});

test("--settings adds settings above the local ones, from a file or a JSON string; --setting-sources chooses the files read", async (t) => {
  const m = machine(t);
  m.userSettings({ permissions: { deny: ["WebSearch"] } });
  m.localSettings({ env: { WHO: "local" } });
  writeFileSync(join(m.root, "run-settings.json"), JSON.stringify({ permissions: { deny: ["WebFetch"] } }));
  const fake = await withFake(t, startFakeAnthropic({ replies: [...toolThenText("Bash", { command: "echo I am $WHO" }, "done"), { text: "ok" }] }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: m.home };

  const run = await harness(
    ["run", ...MODEL, "--permission-mode", "bypassPermissions", "--settings", '{"env": {"WHO": "the flag"}}', "say who"],
    env,
    { cwd: m.project },
  ).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /I am the flag/);
  assert.ok(!offeredTools(fake).includes("WebSearch"), "the user's settings are still read");

  const sources = await harness(["run", ...MODEL, "--setting-sources", "project,local", "--settings", "../run-settings.json", "hi"], env, { cwd: m.project }).result;
  assert.equal(sources.code, 0, sources.stderr);
  const offered = offeredTools(fake, 2);
  assert.ok(offered.includes("WebSearch") && !offered.includes("WebFetch"), offered.join(", "));
});

test("an apiKeyHelper or an API key of --settings (or of the user's settings' env) is enough to start a named Anthropic model", async (t) => {
  const m = machine(t);
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const noKey = { ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", ANTHROPIC_BASE_URL: fake.url, HOME: m.home };

  const helped = await harness(["run", ...MODEL, "--settings", JSON.stringify({ apiKeyHelper: "printf 'key-from-flag-helper\\n'" }), "hi"], noKey, { cwd: m.project }).result;
  assert.equal(helped.code, 0, helped.stderr);
  assert.equal(fake.requests[0]!.headers["x-api-key"], "key-from-flag-helper");

  const keyed = await harness(["run", ...MODEL, "--settings", JSON.stringify({ env: { ANTHROPIC_API_KEY: "key-from-flag-env" } }), "hi"], noKey, { cwd: m.project }).result;
  assert.equal(keyed.code, 0, keyed.stderr);
  assert.equal(fake.requests[1]!.headers["x-api-key"], "key-from-flag-env");

  m.userSettings({ env: { ANTHROPIC_API_KEY: "key-from-user-env" } });
  const user = await harness(["run", ...MODEL, "hi"], noKey, { cwd: m.project }).result;
  assert.equal(user.code, 0, user.stderr);
  assert.equal(fake.requests[2]!.headers["x-api-key"], "key-from-user-env");
});

test("--add-dir lets the file tools reach other directories, several to a flag", async (t) => {
  const m = machine(t);
  mkdirSync(join(m.root, "lib"));
  mkdirSync(join(m.root, "docs"));
  writeFileSync(join(m.root, "docs", "guide.md"), "the shared guide\n");
  const fake = await withFake(t, startFakeAnthropic({ replies: [...toolThenText("Read", { file_path: join(m.root, "docs", "guide.md") }, "read it"), ...toolThenText("Read", { file_path: join(m.root, "docs", "guide.md") }, "no")] }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: m.home };

  const run = await harness(["run", ...MODEL, "read the guide", "--add-dir", "../lib", "../docs"], env, { cwd: m.project }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /the shared guide/);

  const without = await harness(["run", ...MODEL, "read the guide"], env, { cwd: m.project }).result;
  assert.equal(without.code, 0, without.stderr);
  assert.doesNotMatch(JSON.stringify(fake.requests[3]!.body.messages), /the shared guide/);
});

test('--tools offers only the built-in tools it names: "" none, "default" all', async (t) => {
  const dir = tempDir(t);
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }, { text: "ok" }, { text: "ok" }] }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };

  for (const [value, check] of [
    ["Bash,Read", (names: string[]) => assert.deepEqual(names, ["Read", "Bash"])],
    ["", (names: string[]) => assert.deepEqual(names, [])],
    ["default", (names: string[]) => assert.ok(["Bash", "Read", "Edit", "Task", "WebFetch"].every((name) => names.includes(name)), names.join(", "))],
  ] as const) {
    const run = await harness(["run", "--cwd", dir, ...MODEL, "--tools", value, "hi"], env).result;
    assert.equal(run.code, 0, run.stderr);
    check(offeredTools(fake, fake.requests.length - 1));
  }
});

test("bad values of these flags are one line naming the flag, exit 1, and no model call", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "broken.json"), "{ not json");
  writeFileSync(join(dir, "list.json"), "[1, 2]");
  const fake = await withFake(t, startFakeAnthropic({ replies: [] }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const cases: [string[], RegExp][] = [
    [["--mcp-config", "missing.json"], /^harness: --mcp-config: .*missing\.json.*(not found|no such file)/],
    [["--mcp-config", "broken.json"], /^harness: --mcp-config: .*broken\.json.*JSON/],
    [["--mcp-config", '{"mcpServers": {"x": {"command": 7}}}'], /^harness: --mcp-config \(mcpServers\.x\.command\): "command" must be a string/],
    [["--mcp-config", '{"servers": {}}'], /^harness: --mcp-config: .*"mcpServers"/],
    [["--settings", "list.json"], /^harness: --settings: .*list\.json.*JSON object/],
    [["--settings", '{"permissions": {"allow": "Bash"}}'], /^harness: --settings \(permissions\.allow\): /],
    [["--setting-sources", "user,team"], /^harness: --setting-sources: "team"/],
    [["--add-dir", "nowhere"], /^harness: --add-dir: .*nowhere.* not a directory/],
  ];
  for (const [flags, expected] of cases) {
    const { code, stdout, stderr } = await harness(["run", "--cwd", dir, ...MODEL, ...flags, "--", "hi"], env, { cwd: dir }).result;
    assert.equal(code, 1, `${flags.join(" ")}: ${stderr}`);
    assert.equal(stdout, "");
    assert.equal(stderr.split("\n").length, 2, `one line: ${stderr}`);
    assert.match(stderr, expected);
  }
  assert.equal(fake.requests.length, 0);
});

test("--add-dir and --mcp-config take several values; a prompt after them goes after --, or before", () => {
  const parsed = parseArgs(["run", "--add-dir", "../a", "../b", "--mcp-config", "x.json", '{"mcpServers": {}}', "--tools", "", "--", "fix it"]);
  assert.equal(parsed.kind, "run");
  if (parsed.kind !== "run") return;
  assert.deepEqual(parsed.addDirs, ["../a", "../b"]);
  assert.deepEqual(parsed.mcpConfig, ["x.json", '{"mcpServers": {}}']);
  assert.deepEqual(parsed.tools, [""]);
  assert.equal(parsed.prompt, "fix it");
  const spaced = parseArgs(["run", "--add-dir", "../a", "explain this"]);
  assert.ok(spaced.kind === "run" && spaced.prompt === "explain this" && spaced.addDirs?.length === 1, "a value with a space is the prompt");
});

test("in text mode a run keeps quiet about MCP servers that connect, as claude -p does (--verbose shows them); a server not approved is still said", async (t) => {
  const m = machine(t);
  writeFileSync(join(m.project, ".mcp.json"), JSON.stringify({ mcpServers: { shared: mcpTestServerCommand() } }));
  const inline = JSON.stringify({ mcpServers: { t1: mcpTestServerCommand() } });
  const env = (url: string) => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url, HOME: m.home });
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }, { text: "ok" }] }));
  const quiet = await harness(["run", ...MODEL, "--mcp-config", inline, "--", "hi"], env(fake.url), { cwd: m.project }).result;
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, "ok\n");
  assert.doesNotMatch(quiet.stderr, /connected/);
  assert.match(quiet.stderr, /MCP server "shared" of .*\.mcp\.json is not started: not approved/);
  const verbose = await harness(["run", ...MODEL, "--verbose", "--mcp-config", inline, "--", "hi"], env(fake.url), { cwd: m.project }).result;
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stderr, /· MCP server t1 connected: \d+ tools?/);
});
