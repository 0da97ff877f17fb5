// The hook runners, the MCP client, the sandbox's runtime and the sub-agent spawner are loaded when
// a run first needs them. These tests run in a fresh process, so the first run here loads them:
// runs that need them at once, or are cancelled while they load, behave as when they were loaded
// at start.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { mcpTestServerCommand } from "@harness/test-utils";
import type { ScriptedStep } from "../testing/scripted-provider.ts";
import { runInProject, tempProject, type TempProject } from "../testing/project.ts";

/** A project with an approved `.mcp.json` server "x", a SessionStart hook and the sandbox on. */
async function configured(t: Parameters<typeof tempProject>[0]): Promise<TempProject> {
  const project = await tempProject(t);
  const { command, args } = mcpTestServerCommand();
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { x: { command, args } } }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: ["x"] } } }));
  await project.settings({ sandbox: { enabled: true }, hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo started-here" }] }] } });
  return project;
}

// The sandbox's proxies keep the process alive; imported here, not above, which would load it early.
after(async () => (await import("../sandbox/runtime.ts")).stopSandbox());

const TWO_TASKS: ScriptedStep[] = [
  {
    toolCalls: [
      { id: "toolu_a", name: "Task", input: { description: "a", prompt: "Look.", subagent_type: "general-purpose" } },
      { id: "toolu_b", name: "Task", input: { description: "b", prompt: "Look.", subagent_type: "general-purpose" } },
    ],
  },
  { text: "Found it." },
  { text: "Found it." },
  { text: "Done." },
];

test("two runs started at once load what they need once: each first request has the MCP tools and the SessionStart context, and both Task calls run", async (t) => {
  const projects = await Promise.all([configured(t), configured(t)]);
  const runs = await Promise.all(projects.map((project) => runInProject(project, TWO_TASKS, { permissionMode: "bypassPermissions" })));
  for (const { result, provider, events } of runs) {
    assert.equal(result.stopReason, "end_turn", result.errorMessage);
    const first = provider.requests[0]!;
    assert.ok(first.tools?.some((tool) => tool.name === "mcp__x__echo"), "the server's tools are in the first request");
    assert.match(JSON.stringify(first.messages.at(-1)), /SessionStart hook additional context: started-here/);
    const tasks = events.filter((e) => e.type === "tool.completed" && e.agentId === undefined);
    assert.equal(tasks.length, 2);
    assert.ok(tasks.every((e) => e.type === "tool.completed" && !e.isError), JSON.stringify(tasks));
  }
});

test("a run cancelled while it starts ends as aborted, at whatever point of its loading the cancel comes", async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  t.after(() => process.off("unhandledRejection", onUnhandled));
  for (const afterMs of [0, 5, 20, 60]) {
    const project = await configured(t);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), afterMs);
    const { result, provider } = await runInProject(project, TWO_TASKS, { permissionMode: "bypassPermissions", signal: controller.signal });
    if (provider.requests.length === 0) assert.equal(result.stopReason, "aborted", `cancelled after ${afterMs} ms`);
  }
  assert.deepEqual(unhandled, []);
});
