// claude's flags that shape every run of an interactive session (--append-system-prompt,
// --allowedTools, --disallowedTools, --add-dir, --mcp-config, --settings, --agents, --plugin-dir…)
// on a chat of its own (`harness …`, `harness chat --local …`), in a real terminal against the fake
// Anthropic server: each run of the chat carries them, a bad value stops the chat before it starts
// in harness run's words, and a chat on a shared server refuses them saying why.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mcpTestServerCommand, startFakeAnthropic, toolThenText, type FakeAnthropic } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { bin, greeterPlugin, harness } from "../test-support.ts";
import { inTerminal } from "../test-screen.ts";

let fake: FakeAnthropic;
let home: string;
let root: string;
let project: string;

before(async () => {
  fake = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "harness-chatrun-home-"));
  root = mkdtempSync(join(tmpdir(), "harness-chatrun-"));
  project = join(root, "project");
  mkdirSync(project);
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs", "guide.md"), "the guide says: deploy on Tuesdays\n");
  writeFileSync(join(root, "servers.json"), JSON.stringify({ mcpServers: { flagged: mcpTestServerCommand() } }));
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

const env = () => ({ HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" });
const quoted = (args: string[]) => args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(" ");

type Request = { body: Record<string, unknown> };
const toolNames = (request: Request) => ((request.body.tools as { name: string; description?: string }[] | undefined) ?? []).map((tool) => tool.name);
const taskDescription = (request: Request) => ((request.body.tools as { name: string; description?: string }[]).find((tool) => tool.name === "Task")?.description ?? "");

test("harness with run flags: every run of the chat has the appended prompt, the rules, the directory, the MCP server, the settings, the agents and the plugin", async (t) => {
  const plugin = greeterPlugin(root);
  mkdirSync(join(plugin, "agents"));
  writeFileSync(join(plugin, "agents", "helper.md"), "---\nname: helper\ndescription: Helps with greetings\n---\nYou help.");
  const args = [
    "--append-system-prompt", "Always answer in French.",
    "--disallowedTools", "Bash",
    "--allowedTools", "Read",
    "--settings", JSON.stringify({ permissions: { deny: ["WebFetch"] } }),
    "--agents", JSON.stringify({ reviewer: { description: "Reviews a change for mistakes", prompt: "You review changes." } }),
    "--plugin-dir", plugin,
    "--add-dir", "../docs",
    "--mcp-config", "../servers.json",
  ];
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)} ${quoted(args)}`, { cwd: project, env: { ...process.env, NO_COLOR: "1", TERM: "xterm", ...env() }, columns: 100 });
  await chat.sees(/Ctrl\+D leaves/);
  const first = fake.requests.length;
  fake.push(...toolThenText("Read", { file_path: join(root, "docs", "guide.md") }, "Le guide dit mardi."));
  chat.type("what does the guide say?\r");
  await chat.sees(/Le guide dit mardi\./);
  const asked = fake.requests.slice(first);
  assert.equal(asked.length, 2, "the Read ran without asking (--allowedTools), and the model saw its result");
  assert.match(JSON.stringify(asked[0]!.body.system), /Always answer in French\./);
  const tools = toolNames(asked[0]!);
  assert.ok(!tools.includes("Bash"), `--disallowedTools Bash: ${tools.join(", ")}`);
  assert.ok(!tools.includes("WebFetch"), `--settings' deny: ${tools.join(", ")}`);
  assert.ok(tools.some((name) => name.startsWith("mcp__flagged__")), `--mcp-config's server: ${tools.join(", ")}`);
  assert.match(taskDescription(asked[0]!), /reviewer/);
  assert.match(taskDescription(asked[0]!), /greeter:helper/, "the plugin's agent");
  assert.match(JSON.stringify(asked[1]!.body.messages), /deploy on Tuesdays/, "--add-dir let Read reach ../docs");

  // The chat's next run carries them as well.
  const second = fake.requests.length;
  fake.push({ text: "Oui." });
  chat.type("and again?\r");
  await chat.sees(/Oui\./);
  const again = fake.requests[second]!;
  assert.match(JSON.stringify(again.body.system), /Always answer in French\./);
  assert.ok(!toolNames(again).includes("Bash"));
  assert.ok(toolNames(again).some((name) => name.startsWith("mcp__flagged__")));
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a bad value of a run flag stops the chat before it starts, in harness run's words, naming the flag", async () => {
  const cases: Array<[string[], number, RegExp]> = [
    [["--mcp-config", "missing.json"], 1, /^harness: --mcp-config: cannot read .*missing\.json: no such file/],
    [["--mcp-config", '{"mcpServers": {"x": {"command": 7}}}'], 1, /^harness: --mcp-config \(mcpServers\.x\.command\): "command" must be a string/],
    [["--add-dir", "nowhere", "--"], 1, /^harness: --add-dir: \S*nowhere is not a directory/],
    [["--settings", "{ not json"], 1, /^harness: --settings: the value is not valid JSON/],
    [["--agents", "[]"], 1, /^harness: --agents: /],
    [["--disallowedTools", "Bash("], 2, /^harness: --disallowedTools/],
  ];
  const asked = fake.requests.length;
  for (const [flags, code, message] of cases) {
    const chat = await harness([...flags, "hello"], env(), { cwd: project, stdin: "" }).result;
    assert.equal(chat.code, code, `${flags.join(" ")}: ${chat.stderr}`);
    assert.match(chat.stderr, message, flags.join(" "));
    assert.equal(chat.stderr.trim().split("\n").length, 1, chat.stderr);
  }
  assert.equal(fake.requests.length, asked, "no prompt went");
  // The claude-code backend takes none of them (harness run always runs the builtin agent).
  const claudeCode = await harness(["--append-system-prompt", "Be brief.", "hello"], { ...env(), HARNESS_BACKEND: "claude-code" }, { cwd: project, stdin: "" }).result;
  assert.equal(claudeCode.code, 1, claudeCode.stderr);
  assert.equal(claudeCode.stderr, "harness: --append-system-prompt: the chat's runs go to the claude-code backend (HARNESS_BACKEND), which does not take it: it is the builtin agent's, as on harness run; leave it out, or set HARNESS_BACKEND=builtin\n");
});

test("a chat on a shared server refuses each run flag, saying why", async () => {
  for (const flag of ["--append-system-prompt", "--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools", "--add-dir", "--mcp-config", "--settings", "--agents", "--plugin-dir"]) {
    const refused = parseArgs(["chat", "--url", "http://h", flag, "x", "--", "hi"]);
    assert.equal(refused.kind, "usage-error", flag);
    assert.match(refused.kind === "usage-error" ? refused.message : "", new RegExp(`^${flag} cannot be given to a chat on a shared server: it would change the runs of the server's other clients too`), flag);
  }
  const { code, stderr } = await harness(["chat", "--url", "http://127.0.0.1:9", "--add-dir", "..", "--", "hi"], env()).result;
  assert.equal(code, 2);
  assert.match(stderr, /^harness: --add-dir cannot be given to a chat on a shared server: .*harness chat --local/);
  // The chat of its own takes them.
  assert.deepEqual(parseArgs(["--append-system-prompt", "Be brief.", "--add-dir", "../a", "../b", "--", "hi"]), {
    kind: "chat",
    local: true,
    prompt: "hi",
    runFlags: { appendSystemPrompt: "Be brief.", addDirs: ["../a", "../b"] },
  });
});
