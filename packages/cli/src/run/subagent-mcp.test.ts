// The MCP servers of a sub-agent's definition (an agent file's `mcpServers`, the --agents JSON's),
// as Claude Code has them: a server it defines starts for it alone when a Task call starts it and
// closes when it ends, the main agent never offered its tools; a server it names is one the run has
// configured, whose tools it gets even when its `tools` list leaves them out.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, processAlive, startFakeAnthropic, waitFor, type FakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const taskCall = (type: string) => ({ toolUses: [{ name: "Task", input: { description: "Do it", prompt: "Do the task.", subagent_type: type } }] });
const offered = (fake: FakeAnthropic, i: number) => (fake.requests[i]!.body.tools as { name: string }[]).map((tool) => tool.name);

type Block = { type: string; content?: unknown; is_error?: boolean };
/** The text of the first tool_result of request `i`'s last message. */
function toolResultOf(fake: FakeAnthropic, i: number): { text: string; isError: boolean } {
  const messages = fake.requests[i]!.body.messages as { content: Block[] | string }[];
  const last = messages.at(-1)!.content as Block[];
  const result = last.find((block) => block.type === "tool_result")!;
  const text = typeof result.content === "string" ? result.content : (result.content as { text?: string }[]).map((part) => part.text ?? "").join("");
  return { text, isError: result.is_error === true };
}

/** A fake whose main agent calls Task(`type`), whose sub-agent calls `mcp__helper__pid` and
 * finishes; the main agent's last reply waits (up to 15 s) for the server that answered to be gone,
 * and `closedFirst()` says whether it was. */
async function pidScenario(t: { after(fn: () => unknown): void }, type: string) {
  let fake: FakeAnthropic | undefined;
  let closed = false;
  const hold = (async () => {
    await waitFor(() => fake !== undefined && fake.requests.length >= 4, "the main agent's last request", { timeoutMs: 30_000 });
    const pid = Number(toolResultOf(fake!, 2).text);
    await waitFor(() => Number.isInteger(pid) && pid > 0 && !processAlive(pid), "the sub-agent's server to stop", { timeoutMs: 15_000 });
    closed = true;
  })();
  fake = await withFake(
    t,
    startFakeAnthropic({ replies: [taskCall(type), { toolUses: [{ name: "mcp__helper__pid", input: {} }] }, { text: "Sub done." }, { text: "All done.", hold }] }),
  );
  return { fake: fake!, closedFirst: () => closed };
}

test("a sub-agent's own MCP server starts for it alone, its call reaches the server, and it closes when the sub-agent ends; a configured server it names is its too", async (t) => {
  const { fake, closedFirst } = await pidScenario(t, "tooled");
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  const server = JSON.stringify(mcpTestServerCommand());
  writeFileSync(join(dir, ".claude", "agents", "tooled.md"), `---\nname: tooled\ndescription: Uses tools\ntools: Read\nmcpServers: [{"helper": ${server}}, "configured"]\n---\nYou use tools.\n`);
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { configured: mcpTestServerCommand() } }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const { code, stderr } = await harness(["run", "--cwd", dir, "--mcp-config", join(dir, "mcp.json"), "--allowedTools", "mcp__helper__pid", "go"], env).result;
  assert.equal(code, 0, stderr);

  assert.ok(!offered(fake, 0).some((name) => name.startsWith("mcp__helper__")), offered(fake, 0).join(", "));
  assert.ok(offered(fake, 0).includes("mcp__configured__echo"), offered(fake, 0).join(", "));
  const sub = offered(fake, 1);
  assert.ok(sub.includes("Read") && !sub.includes("Bash"), sub.join(", "));
  assert.ok(sub.includes("mcp__helper__pid"), sub.join(", "));
  assert.ok(sub.includes("mcp__configured__echo"), sub.join(", "));
  const result = toolResultOf(fake, 2);
  assert.equal(result.isError, false, result.text);
  assert.match(result.text, /^\d+$/);
  assert.ok(closedFirst(), "the sub-agent's server was still running when the main agent went on");
  assert.ok(!offered(fake, 3).some((name) => name.startsWith("mcp__helper__")), offered(fake, 3).join(", "));
});

test("--agents: an agent given as JSON gets the MCP servers it defines, as an agent file's, for it alone", async (t) => {
  const { fake, closedFirst } = await pidScenario(t, "tooled");
  const dir = tempDir(t);
  const agents = JSON.stringify({ tooled: { description: "Uses tools", prompt: "You use tools.", tools: ["Read"], mcpServers: [{ helper: mcpTestServerCommand() }] } });
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const { code, stderr } = await harness(["run", "--cwd", dir, "--agents", agents, "--allowedTools", "mcp__helper__pid", "go"], env).result;
  assert.equal(code, 0, stderr);
  assert.ok(!offered(fake, 0).some((name) => name.startsWith("mcp__helper__")), offered(fake, 0).join(", "));
  assert.ok(offered(fake, 1).includes("mcp__helper__pid"), offered(fake, 1).join(", "));
  const result = toolResultOf(fake, 2);
  assert.equal(result.isError, false, result.text);
  assert.match(result.text, /^\d+$/);
  assert.ok(closedFirst(), "the sub-agent's server was still running when the main agent went on");
});

test("a server an agent file defines that cannot start, or names that the run has not configured, is said naming the file and the field; the sub-agent runs without it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [taskCall("tooled"), { text: "Sub done." }, { text: "All done." }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  const file = join(dir, ".claude", "agents", "tooled.md");
  writeFileSync(file, `---\nname: tooled\ndescription: Uses tools\nmcpServers: [{"broken": {"args": ["x"]}}, {"helper": ${JSON.stringify(mcpTestServerCommand())}}, "absent"]\n---\nYou use tools.\n`);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--output-format", "stream-json", "--verbose", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.ok(stdout.includes(`${file} (mcpServers.broken.command): missing \\"command\\" (the program to start); the agent tooled runs without this server.`), stdout);
  assert.ok(stdout.includes(`The agent tooled (${file}) names the MCP server \\"absent\\", which this run has not connected (or which has no tools); it runs without it.`), stdout);
  const sub = offered(fake, 1);
  assert.ok(sub.includes("mcp__helper__echo") && !sub.some((name) => name.startsWith("mcp__broken__")), sub.join(", "));
});

test("--strict-mcp-config leaves out the servers a sub-agent's definition defines, as it does the main thread agent's, and says so", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [taskCall("tooled"), { text: "Sub done." }, { text: "All done." }] }));
  const dir = tempDir(t);
  const agents = JSON.stringify({ tooled: { description: "Uses tools", prompt: "You use tools.", mcpServers: [{ helper: mcpTestServerCommand() }] } });
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--agents", agents, "--strict-mcp-config", "--output-format", "stream-json", "--verbose", "go"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  assert.ok(!offered(fake, 1).some((name) => name.startsWith("mcp__helper__")), offered(fake, 1).join(", "));
  assert.match(stdout, /The MCP servers the agent tooled \(--agents\) defines are not started: the run uses only its --mcp-config servers \(--strict-mcp-config\)\. Left out: \\"helper\\"\./);
});

test("a sub-agent with no tools list reads the resources of the run's servers and of its own with the one pair of resource tools", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        taskCall("reader"),
        { toolUses: [{ name: "ListMcpResourcesTool", input: {} }] },
        { toolUses: [{ name: "ReadMcpResourceTool", input: { server: "notes", uri: "docs://readme" } }] },
        { text: "Sub done." },
        { text: "All done." },
      ],
    }),
  );
  const dir = tempDir(t);
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { docs: mcpTestServerCommand({ resources: true }) } }));
  const agents = JSON.stringify({ reader: { description: "Reads", prompt: "You read.", mcpServers: [{ notes: mcpTestServerCommand({ resources: true }) }] } });
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const { code, stderr } = await harness(["run", "--cwd", dir, "--mcp-config", join(dir, "mcp.json"), "--agents", agents, "go"], env).result;
  assert.equal(code, 0, stderr);
  const sub = offered(fake, 1);
  assert.equal(sub.filter((name) => name === "ListMcpResourcesTool").length, 1, sub.join(", "));
  const listed = toolResultOf(fake, 2);
  assert.equal(listed.isError, false, listed.text);
  assert.match(listed.text, /"server": "docs"/);
  assert.match(listed.text, /"server": "notes"/);
  const read = toolResultOf(fake, 3);
  assert.equal(read.isError, false, read.text);
});

test("a server a sub-agent defines under the name of one the run has is not started, and is said naming the agent and the server", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [taskCall("tooled"), { text: "Sub done." }, { text: "All done." }] }));
  const dir = tempDir(t);
  const marker = join(dir, "own-started");
  const { command, args } = mcpTestServerCommand();
  const own = { command: "bash", args: ["-c", `touch ${marker} && exec "$0" "$@"`, command, ...args] };
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { helper: mcpTestServerCommand() } }));
  const agents = JSON.stringify({ tooled: { description: "Uses tools", prompt: "You use tools.", mcpServers: [{ helper: own }] } });
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--mcp-config", join(dir, "mcp.json"), "--agents", agents, "--output-format", "stream-json", "--verbose", "go"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /MCP server \\"helper\\" the agent tooled \(--agents\) defines is not started: this run already has a server of that name\./);
  assert.ok(offered(fake, 1).includes("mcp__helper__echo"), offered(fake, 1).join(", "));
  assert.ok(!existsSync(marker), "the agent's own server was started");
});

test("a run cancelled while a sub-agent's own server is up stops that server", async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const fake = await withFake(t, startFakeAnthropic({ replies: [taskCall("tooled"), { toolUses: [{ name: "mcp__helper__pid", input: {} }] }, { text: "Never.", hold }] }));
  const dir = tempDir(t);
  const agents = JSON.stringify({ tooled: { description: "Uses tools", prompt: "You use tools.", mcpServers: [{ helper: mcpTestServerCommand() }] } });
  const { child, result } = harness(["run", "--cwd", dir, "--agents", agents, "--allowedTools", "mcp__helper__pid", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
  t.after(() => child.kill("SIGKILL"));
  await fake.waitForRequests(3);
  const pid = Number(toolResultOf(fake, 2).text);
  assert.ok(Number.isInteger(pid) && pid > 0 && processAlive(pid), `no live server process: ${toolResultOf(fake, 2).text}`);
  child.kill("SIGINT");
  const { code } = await result;
  assert.equal(code, 130);
  await waitFor(() => !processAlive(pid), "the sub-agent's server to stop");
});
